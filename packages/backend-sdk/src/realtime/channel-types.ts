/** The types of realtime channels: their configuration, statuses and what callbacks receive. */
import type { PostgresFilter } from './postgres';

/** Configuration sent with the join. */
export interface ChannelConfig {
  broadcast?: { self?: boolean; ack?: boolean };
  presence?: { key?: string; enabled?: boolean };
  /** A private channel, authorized by RLS on `realtime.messages`. */
  private?: boolean;
}

/** Status reported to the `subscribe()` callback. */
export type SubscribeStatus = 'SUBSCRIBED' | 'TIMED_OUT' | 'CLOSED' | 'CHANNEL_ERROR';

/** Channel state. */
export type ChannelState = 'closed' | 'joining' | 'joined' | 'leaving' | 'errored';

/** What a postgres_changes callback receives. */
export interface PostgresChange<T = Record<string, unknown>> {
  schema: string;
  table: string;
  commit_timestamp: string;
  eventType: 'INSERT' | 'UPDATE' | 'DELETE';
  new: Partial<T>;
  old: Partial<T>;
  errors: string[] | null;
}

/** A postgres_changes subscription. */
export interface PostgresChangesFilter {
  event: '*' | 'INSERT' | 'UPDATE' | 'DELETE';
  schema: string;
  table?: string;
  /** `col=op.value`, or a builder from `pgFilter()`. */
  filter?: string | PostgresFilter;
}

/** A broadcast message as callbacks receive it. */
export interface BroadcastMessage {
  type: 'broadcast';
  event: string;
  payload: unknown;
  meta?: { id?: string; replayed?: boolean };
}

/** A listener added with `on()`, as `channel.bindings` lists it (by type). */
export interface Binding {
  /** `postgres_changes`, `broadcast`, `presence` or `system`. */
  type: string;
  /** The filter given to `on()` (a `pgFilter()` builder as its string). */
  filter: Record<string, unknown>;
  callback: (payload: never) => void;
  /** Order of the listener in the channel. */
  ref: number;
  /** For postgres_changes: the server's id of the subscription, once joined. */
  id?: number;
}
