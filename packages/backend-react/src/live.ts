import { type QueryKey, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { type ChannelStatus, useChannel } from './realtime';

/**
 * Refetches cached queries after changes: `schedule()` coalesces a burst into one refetch
 * after `debounceMs`; `now()` refetches at once. While mounted it also refetches when the
 * page wakes up — back online, visible again, resumed after being frozen, restored from the
 * back-forward cache — since changes may have been missed while it slept.
 */
function useRefresher(queryKeys: QueryKey[] | undefined, debounceMs: number, enabled: boolean) {
  const queryClient = useQueryClient();
  const settings = useRef({ queryClient, queryKeys, debounceMs });
  settings.current = { queryClient, queryKeys, debounceMs };
  const [refresher] = useState(() => {
    let timer: ReturnType<typeof setTimeout> | null = null;
    const self = {
      now() {
        if (timer) clearTimeout(timer);
        timer = null;
        const { queryClient: cache, queryKeys: keys } = settings.current;
        if (!keys) void cache.invalidateQueries();
        else for (const queryKey of keys) void cache.invalidateQueries({ queryKey });
      },
      schedule() {
        if (timer) clearTimeout(timer);
        timer = setTimeout(self.now, settings.current.debounceMs);
      },
      cancel() {
        if (timer) clearTimeout(timer);
        timer = null;
      },
    };
    return self;
  });

  useEffect(() => {
    if (!enabled || typeof window === 'undefined') return;
    const wake = () => refresher.schedule();
    const visible = () => {
      if (document.visibilityState === 'visible') wake();
    };
    const shown = (event: PageTransitionEvent) => {
      if (event.persisted) wake();
    };
    window.addEventListener('online', wake);
    window.addEventListener('pageshow', shown);
    document.addEventListener('visibilitychange', visible);
    document.addEventListener('resume', wake);
    return () => {
      window.removeEventListener('online', wake);
      window.removeEventListener('pageshow', shown);
      document.removeEventListener('visibilitychange', visible);
      document.removeEventListener('resume', wake);
    };
  }, [enabled, refresher]);
  useEffect(() => () => refresher.cancel(), [refresher]);
  return refresher;
}

/** Calls `refresh` on every (re)join after the first: what changed meanwhile was missed. */
function useRejoinRefresh(refresh: () => void) {
  const joinedOnce = useRef(false);
  return (status: string) => {
    if (status !== 'SUBSCRIBED') return;
    if (joinedOnce.current) refresh();
    joinedOnce.current = true;
  };
}

/** One `postgres_changes` subscription: which rows to watch. */
export interface ChangeFilter {
  /** Default `'*'` (INSERT, UPDATE and DELETE). */
  event?: '*' | 'INSERT' | 'UPDATE' | 'DELETE';
  /** Default `'public'`. */
  schema?: string;
  table: string;
  /**
   * A PostgREST-style filter, e.g. `folder_id=eq.<id>`. As on the hosted backend, a DELETE
   * carries only the primary key (unless the table's replica identity is full), so a filter on
   * another column never matches a delete: use {@link useLiveTopic} for per-user feeds.
   */
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
 * refetches the queries under `queryKeys` (debounced), and so does each (re)join and each
 * wake-up of the page (online, visible, resumed), so nothing missed while disconnected or
 * asleep stays stale. Row visibility is decided by the backend (RLS).
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
  const enabled = options.enabled ?? true;
  const refresher = useRefresher(queryKeys, options.debounceMs ?? 150, enabled);
  const onChange = useRef(options.onChange);
  onChange.current = options.onChange;
  const onStatus = useRejoinRefresh(() => refresher.schedule());
  const spec = JSON.stringify(changes);
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
            refresher.schedule();
            onChange.current?.(payload);
          },
        );
      }
    },
    { enabled, onStatus },
  );
}

/** A broadcast message as {@link useLiveTopic} hands it to `onMessage`. */
export interface LiveMessage {
  event: string;
  payload: unknown;
}

/** Options of {@link useLiveTopic}. */
export interface LiveTopicOptions {
  /** Join only when true. Default true. */
  enabled?: boolean;
  /**
   * Join as a private channel: the backend admits the client only when its RLS policies on
   * `realtime.messages` let it read broadcasts of this topic. Default true.
   */
  private?: boolean;
  /** The broadcast event to listen to. Default `'*'` (every event). */
  event?: string;
  /** Queries to refetch. Default: every query of the cache. */
  queryKeys?: QueryKey[];
  /** Coalesce bursts of messages into one refetch, in ms. Default 100. */
  debounceMs?: number;
  /** Called with each message (after the refetch is scheduled). */
  onMessage?: (message: LiveMessage) => void;
}

/**
 * Keeps cached queries fresh from broadcasts on one (by default private) topic — the hosted
 * backend's way to give each user a feed of their own changes: database triggers call
 * `realtime.send(payload, event, 'feed:' || owner_id, true)` (or
 * `realtime.broadcast_changes(…)`), and an RLS policy on `realtime.messages` lets a user read
 * only their own topic. Unlike `postgres_changes`, deletes arrive like any other change.
 * Every message refetches the queries (debounced), and so do each re-join and each wake-up of
 * the page (online, visible, resumed), so a device that was offline or asleep catches up.
 *
 * @example
 * // create policy "own feed" on realtime.messages for select to authenticated
 * //   using (realtime.messages.extension = 'broadcast'
 * //     and (select realtime.topic()) = 'feed:' || (select auth.uid())::text);
 * const status = useLiveTopic(`feed:${user.id}`, { event: 'change', enabled: Boolean(user) });
 */
export function useLiveTopic(topic: string, options: LiveTopicOptions = {}): ChannelStatus {
  const enabled = options.enabled ?? true;
  const refresher = useRefresher(options.queryKeys, options.debounceMs ?? 100, enabled);
  const onMessage = useRef(options.onMessage);
  onMessage.current = options.onMessage;
  const onStatus = useRejoinRefresh(() => refresher.schedule());
  const event = options.event ?? '*';
  return useChannel(
    topic,
    (channel) => {
      channel.on('broadcast', { event }, (message: { event?: string; payload?: unknown }) => {
        refresher.schedule();
        onMessage.current?.({ event: message.event ?? event, payload: message.payload });
      });
    },
    {
      enabled,
      channelOptions: { config: { private: options.private ?? true } },
      onStatus,
    },
  );
}
