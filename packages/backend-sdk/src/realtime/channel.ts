/**
 * A realtime channel: join/leave with status callbacks, postgres_changes, broadcast (socket and
 * HTTP), presence, and automatic rejoin with backoff.
 */
import { broadcastUnjoined, httpBroadcast } from './broadcast-http';
import type {
  Binding,
  BroadcastMessage,
  ChannelConfig,
  ChannelState,
  PostgresChange,
  PostgresChangesFilter,
  SubscribeStatus,
} from './channel-types';
import type { RealtimeClient } from './client';
import { RealtimeError } from './errors';
import { convertRow } from './postgres';
import { type Presence, type PresenceState, PresenceStore } from './presence';
import type { Message } from './serializer';
import { backoff } from './timers';

export type {
  Binding,
  BroadcastMessage,
  ChannelConfig,
  ChannelState,
  PostgresChange,
  PostgresChangesFilter,
  SubscribeStatus,
} from './channel-types';

type Reply = { status: string; response: Record<string, unknown> };
type PushResult = 'ok' | 'timed out' | 'error';

const pgKey = (b: Record<string, unknown>) =>
  [b.event, b.schema, b.table ?? '', b.filter ?? ''].map(String).join('|');

/**
 * One channel of the realtime socket.
 *
 * @example
 * const channel = client
 *   .channel('files')
 *   .on('postgres_changes', { event: '*', schema: 'public', table: 'files' }, (c) => refresh(c))
 *   .subscribe((status, error) => console.log(status, error));
 */
export class RealtimeChannel {
  readonly topic: string;
  state: ChannelState = 'closed';
  #joinRef: string | null = null;
  /** Listeners added with `on()`, by type (`postgres_changes`, `broadcast`, …). */
  readonly bindings: Record<string, Binding[]> = {};
  #ref = 0;
  #buffer: Message[] = [];
  #replies = new Map<string, (reply: Reply | undefined) => void>();
  #rejoinTimer: unknown;
  #rejoinTries = 0;
  #onStatus: ((status: SubscribeStatus, error?: RealtimeError) => void) | undefined;
  readonly #presence: PresenceStore;

  readonly #socket: RealtimeClient;

  constructor(
    socket: RealtimeClient,
    readonly name: string,
    readonly config: ChannelConfig = {},
  ) {
    this.#socket = socket;
    this.topic = `realtime:${name}`;
    const fire = (event: string, payload: Record<string, unknown>) =>
      this.#emit('presence', (f) => f.event === event, { event, ...payload });
    this.#presence = new PresenceStore({
      sync: () => fire('sync', {}),
      join: (key, currentPresences, newPresences) =>
        fire('join', { key, currentPresences, newPresences }),
      leave: (key, currentPresences, leftPresences) =>
        fire('leave', { key, currentPresences, leftPresences }),
    });
  }

  /** Listens to changes of rows. */
  on<T = Record<string, unknown>>(
    type: 'postgres_changes',
    filter: PostgresChangesFilter,
    callback: (change: PostgresChange<T>) => void,
  ): this;
  /** Listens to broadcast messages (`event: '*'` for all). */
  on(type: 'broadcast', filter: { event: string }, callback: (msg: BroadcastMessage) => void): this;
  /** Listens to presence changes. */
  on(
    type: 'presence',
    filter: { event: 'sync' | 'join' | 'leave' },
    callback: (event: {
      event: string;
      key?: string;
      currentPresences?: Presence[];
      newPresences?: Presence[];
      leftPresences?: Presence[];
    }) => void,
  ): this;
  /** Listens to `system` messages of the server. */
  on(type: 'system', filter: object, callback: (msg: Record<string, unknown>) => void): this;
  on(type: string, filter: object, callback: (payload: never) => void): this {
    const f = { ...filter } as Record<string, unknown>;
    if (f.filter !== undefined) f.filter = String(f.filter);
    this.bindings[type] ??= [];
    this.bindings[type].push({ type, filter: f, callback, ref: ++this.#ref });
    return this;
  }

  /**
   * Joins the channel (connecting the socket if needed). The callback hears every status
   * change: `SUBSCRIBED`, then `CHANNEL_ERROR` / `TIMED_OUT` (followed by automatic rejoins)
   * or `CLOSED`.
   */
  subscribe(callback?: (status: SubscribeStatus, error?: RealtimeError) => void): this {
    this.#onStatus = callback;
    if (this.state === 'joined' || this.state === 'joining') return this;
    this.state = 'joining';
    this.#socket.connect();
    void this.#join();
    return this;
  }

  /** Leaves the channel; it is removed from the client. */
  async unsubscribe(): Promise<PushResult> {
    this.#socket.timers.clearTimeout(this.#rejoinTimer);
    let result: PushResult = 'ok';
    if (this.state === 'joined') {
      this.state = 'leaving';
      const reply = await this.#request('phx_leave', {});
      result = reply ? 'ok' : 'timed out';
    }
    this.#close();
    this.#socket.forget(this);
    return result;
  }

  /** The current presence state: `{ key: [{ ...fields, presence_ref }] }`. */
  presenceState<T = Record<string, unknown>>(): PresenceState<T> {
    return { ...this.#presence.state } as PresenceState<T>;
  }

  /** Tracks this client's presence with `payload` (re-tracking updates it). */
  async track(payload: Record<string, unknown>): Promise<PushResult> {
    return this.#status(
      await this.#request('presence', { type: 'presence', event: 'track', payload }),
    );
  }

  /** Stops tracking this client's presence. */
  async untrack(): Promise<PushResult> {
    return this.#status(await this.#request('presence', { type: 'presence', event: 'untrack' }));
  }

  /**
   * Sends a broadcast over the socket (binary frame in vsn 2.0.0). With `broadcast.ack` the
   * result waits for the server. When the channel is not joined it goes over HTTP
   * (`POST /realtime/v1/api/broadcast`), as the official client does; prefer `httpSend()`.
   */
  async send(message: {
    type: 'broadcast';
    event: string;
    payload?: unknown;
  }): Promise<PushResult> {
    if (this.state !== 'joined')
      return broadcastUnjoined(this.#socket, this.name, !!this.config.private, message);
    const payload = { type: 'broadcast', event: message.event, payload: message.payload ?? {} };
    if (!this.config.broadcast?.ack) {
      this.#pushNow('broadcast', payload, this.#socket.makeRef());
      return 'ok';
    }
    return this.#status(await this.#request('broadcast', payload));
  }

  /**
   * Sends a broadcast over HTTP (`POST /realtime/v1/api/broadcast/<name>/events/<event>`),
   * without joining. Resolves `{ success: true }` once the server accepted it (202); rejects
   * with a {@link RealtimeError} otherwise (`status` is the HTTP status, 0 when no response
   * arrived), as the official client rejects.
   *
   * @example
   * await channel.httpSend('cursor', { x: 1, y: 2 }, { timeout: 5000 });
   */
  async httpSend(
    event: string,
    payload: unknown,
    options: { timeout?: number; signal?: AbortSignal } = {},
  ): Promise<{ success: true }> {
    return httpBroadcast(this.#socket, this.name, !!this.config.private, event, payload, options);
  }

  /** @internal The socket opened: rejoin when the channel had been joined. */
  socketOpened(): void {
    if (this.state === 'errored') this.#rejoin();
  }

  /** @internal The socket closed: the channel is errored until the socket reopens. */
  socketClosed(): void {
    this.#failReplies();
    if (this.state !== 'joined' && this.state !== 'joining') return;
    this.state = 'errored';
    this.#onStatus?.(
      'CHANNEL_ERROR',
      new RealtimeError('The connection was lost', { code: 'connection_lost' }),
    );
  }

  /** @internal A new token: pushed to the server when joined. */
  updateToken(token: string): void {
    if (this.state === 'joined')
      this.#pushNow('access_token', { access_token: token }, this.#socket.makeRef());
  }

  /** @internal A message for this topic. */
  receive(msg: Message): void {
    const { event, payload, ref } = msg;
    if (msg.join_ref && msg.join_ref !== this.#joinRef) return;
    if (event === 'phx_reply') {
      const resolve = ref ? this.#replies.get(ref) : undefined;
      if (ref) this.#replies.delete(ref);
      resolve?.(payload as Reply);
    } else if (event === 'phx_close') {
      if (ref && ref !== this.#joinRef) return;
      if (this.state !== 'leaving') this.#close();
    } else if (event === 'phx_error') {
      if (ref && ref !== this.#joinRef) return;
      this.#errored(
        new RealtimeError('The channel crashed on the server', { code: 'channel_error' }),
      );
    } else if (event === 'presence_state') {
      this.#presence.applyState(payload as never);
    } else if (event === 'presence_diff') {
      this.#presence.applyDiff(payload as never);
    } else if (event === 'postgres_changes') {
      const ids = (payload.ids as number[]) ?? [];
      const data = payload.data as Record<string, never>;
      const change = {
        schema: data.schema,
        table: data.table,
        commit_timestamp: data.commit_timestamp,
        eventType: data.type,
        new: convertRow(data.columns, data.record),
        old: convertRow(data.columns, data.old_record),
        errors: data.errors ?? null,
      };
      for (const b of this.bindings.postgres_changes ?? []) {
        if (b.id === undefined || !ids.includes(b.id)) continue;
        if (b.filter.event === '*' || b.filter.event === data.type)
          (b.callback as (p: unknown) => void)(change);
      }
    } else if (event === 'broadcast') {
      const name = String(payload.event).toLowerCase();
      this.#emit(
        'broadcast',
        (f) => f.event === '*' || String(f.event).toLowerCase() === name,
        payload,
      );
    } else if (event === 'system') {
      this.#emit('system', () => true, payload);
    }
  }

  #emit(type: string, match: (f: Record<string, unknown>) => boolean, payload: unknown) {
    for (const b of this.bindings[type] ?? [])
      if (match(b.filter)) (b.callback as (p: unknown) => void)(payload);
  }

  #status(reply: Reply | undefined): PushResult {
    return !reply ? 'timed out' : reply.status === 'ok' ? 'ok' : 'error';
  }

  async #join(): Promise<void> {
    const postgres = this.bindings.postgres_changes ?? [];
    const presence = this.config.presence ?? {};
    const token = await this.#socket.joinToken();
    if (this.state !== 'joining') return;
    this.#socket.token ??= token;
    this.#presence.reset();
    // The official client's join config: each part given replaces its default whole.
    const config = {
      broadcast: this.config.broadcast ?? { ack: false, self: false },
      presence: {
        ...(this.config.presence ?? { key: '' }),
        enabled: presence.enabled === true || !!this.bindings.presence?.length,
      },
      postgres_changes: postgres.map((b) => b.filter),
      private: this.config.private ?? false,
    };
    const ref = this.#socket.makeRef();
    this.#joinRef = ref;
    // Signed out with no token set, the join carries none (the socket's key applies), as the
    // official client's does.
    const join = token === this.#socket.http.key ? { config } : { config, access_token: token };
    const reply = await this.#request('phx_join', join, ref);
    if (this.#joinRef !== ref || this.state !== 'joining') return;
    if (!reply)
      return this.#errored(
        new RealtimeError('Joining timed out', { code: 'timeout' }),
        'TIMED_OUT',
      );
    if (reply.status !== 'ok') {
      const reason = Object.values(reply.response ?? {}).join(', ');
      const code = /^(\w+):/.exec(reason)?.[1] ?? 'join_error';
      return this.#errored(
        new RealtimeError(reason || 'Join refused', { code, details: reply.response }),
      );
    }
    const server = (reply.response?.postgres_changes as Array<Record<string, unknown>>) ?? [];
    for (const [i, b] of postgres.entries()) {
      const s = server[i];
      if (!s || pgKey(s) !== pgKey(b.filter)) {
        void this.unsubscribe();
        this.#onStatus?.(
          'CHANNEL_ERROR',
          new RealtimeError('postgres_changes bindings mismatch', {
            code: 'binding_mismatch',
          }),
        );
        return;
      }
      b.id = Number(s.id);
    }
    this.state = 'joined';
    this.#rejoinTries = 0;
    for (const msg of this.#buffer.splice(0)) this.#socket.push({ ...msg, join_ref: ref });
    this.#onStatus?.('SUBSCRIBED');
  }

  #rejoin(): void {
    this.#socket.timers.clearTimeout(this.#rejoinTimer);
    if (this.state === 'closed' || this.state === 'leaving') return;
    this.state = 'joining';
    void this.#join();
  }

  #errored(error: RealtimeError, status: SubscribeStatus = 'CHANNEL_ERROR'): void {
    if (this.state === 'closed' || this.state === 'leaving') return;
    this.state = 'errored';
    this.#failReplies();
    this.#onStatus?.(status, error);
    this.#socket.timers.clearTimeout(this.#rejoinTimer);
    this.#rejoinTimer = this.#socket.timers.setTimeout(
      () => {
        if (this.#socket.isConnected()) this.#rejoin();
      },
      backoff(++this.#rejoinTries),
    );
  }

  #close(): void {
    const wasOpen = this.state !== 'closed';
    this.state = 'closed';
    this.#joinRef = null;
    this.#failReplies();
    this.#socket.timers.clearTimeout(this.#rejoinTimer);
    if (wasOpen) this.#onStatus?.('CLOSED');
  }

  #failReplies(): void {
    for (const resolve of this.#replies.values()) resolve(undefined);
    this.#replies.clear();
  }

  #pushNow(event: string, payload: Record<string, unknown>, ref: string): void {
    this.#socket.push({ join_ref: this.#joinRef, ref, topic: this.topic, event, payload });
  }

  /** Pushes and waits for the reply (undefined on timeout); buffers until joined. */
  #request(event: string, payload: Record<string, unknown>, ref = this.#socket.makeRef()) {
    return new Promise<Reply | undefined>((resolve) => {
      const timer = this.#socket.timers.setTimeout(() => {
        this.#replies.delete(ref);
        resolve(undefined);
      }, this.#socket.timeout);
      this.#replies.set(ref, (reply) => {
        this.#socket.timers.clearTimeout(timer);
        resolve(reply);
      });
      const msg = { join_ref: this.#joinRef, ref, topic: this.topic, event, payload };
      if (event === 'phx_join' || event === 'phx_leave' || this.state === 'joined')
        this.#socket.push(msg);
      else if (this.#buffer.length < 100) this.#buffer.push(msg);
    });
  }
}
