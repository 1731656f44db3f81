import { useEffect, useRef, useState } from 'react';
import { useBackendClient } from './provider';
import type { ChannelLike, RealtimeClientLike } from './types';

/** Status of a channel as the hooks report it. */
export type ChannelStatus =
  | 'idle'
  | 'joining'
  | 'SUBSCRIBED'
  | 'CHANNEL_ERROR'
  | 'TIMED_OUT'
  | 'CLOSED';

/** Options of {@link useChannel}. */
export interface UseChannelOptions {
  /** Open the channel only when true. Default true. */
  enabled?: boolean;
  /** Options passed to `client.channel(name, options)` (e.g. `{ config: { presence: { key } } }`). */
  channelOptions?: Record<string, unknown>;
  /**
   * Called with every status change (`SUBSCRIBED`, `CHANNEL_ERROR`, …), and the error the
   * client reported with it (e.g. the backend's reason for refusing a join).
   */
  onStatus?: (status: string, channel: ChannelLike, error?: unknown) => void;
}

/**
 * Opens one realtime channel while the component is mounted: `setup` registers the listeners
 * (`channel.on(…)`) before it subscribes; unmounting leaves and removes it. Opening is
 * deferred by one task, so React StrictMode's mount → unmount → mount joins once, and every
 * join is left: no duplicate subscriptions, no leaked channels. Listeners registered in
 * `setup` should read changing values through refs; the channel is reopened only when `name`
 * or `enabled` change.
 *
 * @example
 * useChannel('room:lobby', (channel) => {
 *   channel.on('broadcast', { event: 'message' }, ({ payload }) => add(payload));
 * });
 */
export function useChannel(
  name: string,
  setup: (channel: ChannelLike) => void,
  options: UseChannelOptions = {},
): ChannelStatus {
  const client = useBackendClient<RealtimeClientLike>();
  const [status, setStatus] = useState<ChannelStatus>('idle');
  const latest = useRef({ setup, options });
  latest.current = { setup, options };
  const enabled = options.enabled ?? true;

  useEffect(() => {
    if (!enabled) return;
    let channel: ChannelLike | null = null;
    let active = true;
    const timer = setTimeout(() => {
      if (typeof client.channel !== 'function') {
        console.warn('useChannel: this client has no realtime capability (`client.channel`).');
        setStatus('CHANNEL_ERROR');
        return;
      }
      const { setup: configure, options: current } = latest.current;
      const opened = client.channel(name, current.channelOptions);
      channel = opened;
      configure(opened);
      setStatus('joining');
      opened.subscribe((next: string, error?: unknown) => {
        if (!active) return;
        setStatus(next as ChannelStatus);
        latest.current.options.onStatus?.(next, opened, error);
      });
    }, 0);
    return () => {
      active = false;
      clearTimeout(timer);
      if (channel) {
        if (client.removeChannel) void client.removeChannel(channel);
        else void channel.unsubscribe();
      }
      setStatus('idle');
    };
  }, [client, name, enabled]);

  return status;
}

/** Options of {@link usePresence}. */
export interface UsePresenceOptions {
  /** Join only when true. Default true. */
  enabled?: boolean;
  /** This client's presence key. Default: random per mount (one entry per tab or device). */
  key?: string;
  /**
   * Join as a private channel (`config.private`): the backend admits the client only when
   * its RLS policies on `realtime.messages` allow it for this topic — SELECT on
   * `extension = 'presence'` to join and see who is there, INSERT to track itself. Without
   * it, anyone who knows the name can join and see the presences. Read when the channel
   * opens: a change takes effect when `name` or `enabled` change. Default false.
   */
  private?: boolean;
}

/** What {@link usePresence} returns. */
export interface PresenceResult<TMeta> {
  /** Every tracked presence, flattened across keys. */
  members: TMeta[];
  /** Number of distinct presence keys (e.g. devices). */
  count: number;
  status: ChannelStatus;
  /**
   * Why the last join failed, as the client reported it (for a private channel the user may
   * not read: the backend's `Unauthorized: …` reason); null until a join fails, and again
   * once one succeeds (the client keeps retrying a refused join with backoff).
   */
  error: unknown;
}

/**
 * Joins a presence channel, tracks `meta` for this client (under `key`, default random per
 * mount), and returns who is there, kept in sync. With `private: true` the backend decides
 * who may join, by RLS policies on `realtime.messages`.
 *
 * @example
 * // Only the user may join `devices:<their id>` (policies on realtime.messages allow it).
 * const { count, error } = usePresence(
 *   `devices:${user.id}`,
 *   { since: new Date().toISOString() },
 *   { private: true },
 * );
 * return <span>{error ? 'Devices unavailable' : `${count} devices online`}</span>;
 */
export function usePresence<TMeta extends Record<string, unknown>>(
  name: string,
  meta: TMeta,
  options: UsePresenceOptions = {},
): PresenceResult<TMeta> {
  const [state, setState] = useState<Record<string, unknown[]>>({});
  const [error, setError] = useState<unknown>(null);
  const metaRef = useRef(meta);
  metaRef.current = meta;
  const [ownKey] = useState(() => options.key ?? randomKey());
  const status = useChannel(
    name,
    (channel) => {
      const sync = () => setState({ ...(channel.presenceState?.() ?? {}) });
      channel.on('presence', { event: 'sync' }, sync);
      channel.on('presence', { event: 'join' }, sync);
      channel.on('presence', { event: 'leave' }, sync);
    },
    {
      enabled: options.enabled ?? true,
      channelOptions: {
        config: {
          presence: { key: options.key ?? ownKey },
          ...(options.private ? { private: true } : {}),
        },
      },
      onStatus: (next, channel, reason) => {
        if (next === 'SUBSCRIBED') {
          setError(null);
          void channel.track?.(metaRef.current);
        } else if (reason !== undefined) {
          setError(reason);
        }
      },
    },
  );
  useEffect(() => {
    if (status === 'idle') {
      setState({});
      setError(null);
    }
  }, [status]);
  const members = Object.values(state).flat() as TMeta[];
  return { members, count: Object.keys(state).length, status, error };
}

function randomKey(): string {
  return globalThis.crypto?.randomUUID?.() ?? Math.random().toString(36).slice(2);
}
