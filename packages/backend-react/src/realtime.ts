import { type QueryKey, useQueryClient } from '@tanstack/react-query';
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
  /** Called with every status change (`SUBSCRIBED`, `CHANNEL_ERROR`, …). */
  onStatus?: (status: string, channel: ChannelLike) => void;
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
      opened.subscribe((next: string) => {
        if (!active) return;
        setStatus(next as ChannelStatus);
        latest.current.options.onStatus?.(next, opened);
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

/** One `postgres_changes` subscription: which rows to watch. */
export interface ChangeFilter {
  /** Default `'*'` (INSERT, UPDATE and DELETE). */
  event?: '*' | 'INSERT' | 'UPDATE' | 'DELETE';
  /** Default `'public'`. */
  schema?: string;
  table: string;
  /** A PostgREST-style filter, e.g. `folder_id=eq.<id>`. */
  filter?: string;
}

/** Options of {@link useLiveQueries}. */
export interface LiveQueriesOptions {
  enabled?: boolean;
  /** Coalesce bursts of changes into one refetch, in ms. Default 150. */
  debounceMs?: number;
  /** Called with each change payload (after the refetch is scheduled). */
  onChange?: (payload: unknown) => void;
}

/**
 * Keeps cached queries fresh from `postgres_changes`: every change on the watched tables
 * refetches the queries under `queryKeys` (debounced), and so does each (re)join, so nothing
 * missed while disconnected stays stale. Row visibility is decided by the backend (RLS).
 *
 * @example
 * useLiveQueries('files-live', [{ table: 'files' }, { table: 'folders' }], [['files'], ['folders']]);
 */
export function useLiveQueries(
  name: string,
  changes: ChangeFilter[],
  queryKeys: QueryKey[],
  options: LiveQueriesOptions = {},
): ChannelStatus {
  const queryClient = useQueryClient();
  const keys = useRef(queryKeys);
  keys.current = queryKeys;
  const onChange = useRef(options.onChange);
  onChange.current = options.onChange;
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const debounceMs = options.debounceMs ?? 150;

  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current);
    },
    [],
  );

  const refresh = () => {
    if (timer.current) clearTimeout(timer.current);
    timer.current = setTimeout(() => {
      timer.current = null;
      for (const queryKey of keys.current) void queryClient.invalidateQueries({ queryKey });
    }, debounceMs);
  };

  const spec = JSON.stringify(changes);
  const joinedOnce = useRef(false);
  return useChannel(
    `${name}:${spec}`,
    (channel) => {
      for (const change of changes) {
        channel.on(
          'postgres_changes',
          {
            event: change.event ?? '*',
            schema: change.schema ?? 'public',
            table: change.table,
            ...(change.filter ? { filter: change.filter } : {}),
          },
          (payload: unknown) => {
            refresh();
            onChange.current?.(payload);
          },
        );
      }
    },
    {
      enabled: options.enabled ?? true,
      onStatus: (status) => {
        if (status === 'SUBSCRIBED') {
          if (joinedOnce.current) refresh();
          joinedOnce.current = true;
        }
      },
    },
  );
}

/** What {@link usePresence} returns. */
export interface PresenceResult<TMeta> {
  /** Every tracked presence, flattened across keys. */
  members: TMeta[];
  /** Number of distinct presence keys (e.g. devices). */
  count: number;
  status: ChannelStatus;
}

/**
 * Joins a presence channel, tracks `meta` for this client (under `key`, default random per
 * mount), and returns who is there, kept in sync.
 *
 * @example
 * const { count } = usePresence(`devices:${user.id}`, { device: navigator.userAgent });
 * return <span>{count} devices online</span>;
 */
export function usePresence<TMeta extends Record<string, unknown>>(
  name: string,
  meta: TMeta,
  options: { enabled?: boolean; key?: string } = {},
): PresenceResult<TMeta> {
  const [state, setState] = useState<Record<string, unknown[]>>({});
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
      channelOptions: { config: { presence: { key: options.key ?? ownKey } } },
      onStatus: (next, channel) => {
        if (next === 'SUBSCRIBED') void channel.track?.(metaRef.current);
      },
    },
  );
  useEffect(() => {
    if (status === 'idle') setState({});
  }, [status]);
  const members = Object.values(state).flat() as TMeta[];
  return { members, count: Object.keys(state).length, status };
}

function randomKey(): string {
  return globalThis.crypto?.randomUUID?.() ?? Math.random().toString(36).slice(2);
}
