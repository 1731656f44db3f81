/**
 * The realtime socket: one WebSocket per client speaking Phoenix vsn 2.0.0 (or 1.0.0),
 * heartbeats, reconnect with backoff, rejoin of every channel, and the access token pushed to
 * joined channels whenever it changes.
 */
import type { Http } from '../http/index';
import type { Timers } from '../timers';
import { type ChannelConfig, RealtimeChannel } from './channel';
import { decode, encode, type Message, type Vsn } from './serializer';
import { backoff, platformTimers } from './timers';

/** The part of the WebSocket API the client uses (the platform's, or `ws` in Node). */
export interface WebSocketLike {
  readyState: number;
  binaryType: string;
  send(data: string | ArrayBuffer): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: unknown) => void) | null;
  onclose: ((event: unknown) => void) | null;
  onerror: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
}

/** A WebSocket constructor. */
export type WebSocketConstructor = new (url: string) => WebSocketLike;

/** Options of the realtime client. */
export interface RealtimeOptions {
  /** WebSocket constructor; default the platform's `WebSocket` (pass `ws` on Node 20). */
  transport?: WebSocketConstructor;
  /** Protocol version, default `'2.0.0'`. */
  vsn?: Vsn;
  /** Heartbeat interval, default 25 000 ms. */
  heartbeatIntervalMs?: number;
  /** Timeout of joins and pushes, default 10 000 ms. */
  timeout?: number;
  /** Delay before reconnect attempt n (1-based); default 1, 2, 5, then 10 s. */
  reconnectAfterMs?: (tries: number) => number;
  /** Extra query parameters of the socket URL (e.g. `log_level`). */
  params?: Record<string, string>;
  /**
   * Timers of heartbeats, timeouts and reconnects. `workerTimers()` (from
   * `@app/backend-sdk/realtime`) runs them in a Web Worker, so background tabs keep their
   * heartbeat; default the platform's timers.
   */
  timers?: Timers;
}

const OPEN = 1;

/**
 * The realtime client. Usually reached through `client.channel(name)` / `client.realtime`.
 *
 * @example
 * const realtime = new RealtimeClient(http, { transport: WebSocket });
 * realtime.channel('room').on('broadcast', { event: 'cursor' }, (m) => {}).subscribe();
 */
export class RealtimeClient {
  /** Channels created and not yet removed. */
  readonly channels: RealtimeChannel[] = [];
  readonly vsn: Vsn;
  readonly timeout: number;
  readonly timers: Timers;
  /** The token last sent with a join or an `access_token` push. */
  token: string | null = null;
  /** The token set by `setAuth(token)`; null while the session's token is used. */
  #manual: string | null = null;
  #conn: WebSocketLike | undefined;
  #ref = 0;
  #tries = 0;
  #heartbeatTimer: unknown;
  #reconnectTimer: unknown;
  #connectTimer: unknown;
  #pendingHeartbeat: string | null = null;
  readonly #interval: number;
  #closedByUser = true;
  #sendBuffer: Array<string | ArrayBuffer> = [];

  readonly #options: RealtimeOptions;

  constructor(
    readonly http: Http,
    options: RealtimeOptions = {},
  ) {
    this.#options = options;
    this.vsn = options.vsn ?? '2.0.0';
    this.timeout = options.timeout ?? 10_000;
    this.timers = options.timers ?? platformTimers;
    this.#interval = options.heartbeatIntervalMs ?? 25_000;
    if (typeof addEventListener === 'function' && typeof window !== 'undefined') {
      // Back online, or visible again (after sleep, or restored from the back/forward cache).
      for (const type of ['online', 'visibilitychange']) addEventListener(type, () => this.#wake());
    }
  }

  /** The socket URL (`ws(s)://…/realtime/v1/websocket?apikey=…&vsn=…`). */
  get endpoint(): string {
    const query = new URLSearchParams({
      ...this.#options.params,
      apikey: this.http.key,
      vsn: this.vsn,
    });
    return `${this.http.url.replace(/^http/, 'ws')}/realtime/v1/websocket?${query}`;
  }

  /** True while the socket is open. */
  isConnected(): boolean {
    return this.#conn?.readyState === OPEN;
  }

  /** Opens the socket (channels call it on subscribe). */
  connect(): void {
    this.#closedByUser = false;
    if (this.#conn) return;
    const Transport =
      this.#options.transport ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
    if (!Transport) {
      throw new TypeError('No WebSocket: pass `realtime: { transport }` (e.g. ws)');
    }
    const conn = new Transport(this.endpoint);
    this.#conn = conn;
    conn.binaryType = 'arraybuffer';
    conn.onopen = () => this.#opened();
    conn.onmessage = ({ data }) => this.#receive(data as string | ArrayBuffer);
    conn.onclose = () => this.#closed(conn);
    conn.onerror = () => {};
    // A handshake that never completes (server starting, half-open network) counts as a loss.
    this.timers.clearTimeout(this.#connectTimer);
    this.#connectTimer = this.timers.setTimeout(() => {
      if (this.#conn !== conn || conn.readyState === OPEN) return;
      this.#drop();
      this.#closed(conn);
    }, this.timeout);
  }

  /** Closes the socket and stops reconnecting (channels stay, and rejoin on `connect()`). */
  disconnect(): void {
    this.#closedByUser = true;
    this.timers.clearTimeout(this.#reconnectTimer);
    this.#drop();
  }

  /**
   * Creates a channel (`realtime:<name>`). Call `subscribe()` on it to join.
   *
   * @example
   * const ch = realtime.channel('room', { config: { presence: { key: userId } } });
   */
  channel(name: string, options: { config?: ChannelConfig } = {}): RealtimeChannel {
    const channel = new RealtimeChannel(this, name, options.config);
    this.channels.push(channel);
    return channel;
  }

  /** Leaves and forgets a channel; the socket closes when no channel is left. */
  async removeChannel(channel: RealtimeChannel): Promise<'ok' | 'timed out' | 'error'> {
    const status = await channel.unsubscribe();
    return status;
  }

  /** Leaves and forgets every channel, then closes the socket. */
  async removeAllChannels(): Promise<Array<'ok' | 'timed out' | 'error'>> {
    const result = await Promise.all([...this.channels].map((c) => c.unsubscribe()));
    this.disconnect();
    return result;
  }

  /** @internal Called by a channel once it has left. */
  forget(channel: RealtimeChannel): void {
    const i = this.channels.indexOf(channel);
    if (i >= 0) this.channels.splice(i, 1);
    if (!this.channels.length) this.disconnect();
  }

  /**
   * Sets the token of joins, rejoins and `access_token` pushes, and pushes it to every joined
   * channel when it changed. A token given here is kept (auth changes and heartbeats leave it)
   * until `setAuth()` is called without one, which goes back to the session's token (the key
   * when signed out).
   *
   * @example
   * await client.realtime.setAuth(customJwt); // channels join and stay with this token
   * await client.realtime.setAuth(); // back to the signed-in user's token
   */
  async setAuth(token?: string | null): Promise<void> {
    this.#manual = token || null;
    await this.#use(this.#manual ?? (await this.currentToken()));
  }

  /**
   * @internal The session's token changed (sign-in, refresh, sign-out): used unless a token
   * was set with `setAuth(token)`. Without an argument, asks auth for its current token.
   */
  async sessionToken(token?: string | null): Promise<void> {
    if (this.#manual) return;
    const next = token === undefined ? await this.currentToken() : (token ?? this.http.key);
    if (!this.#manual) await this.#use(next);
  }

  async #use(next: string): Promise<void> {
    if (next === this.token) return;
    this.token = next;
    for (const channel of this.channels) channel.updateToken(next);
  }

  /** @internal The token for a join: the one set with `setAuth(token)`, else auth's current one. */
  async joinToken(): Promise<string> {
    return this.#manual ?? (await this.currentToken());
  }

  /** @internal The session's token, fresh from auth (the key when signed out). */
  async currentToken(): Promise<string> {
    return (await this.http.accessToken().catch(() => null)) ?? this.http.key;
  }

  /** @internal Next message reference. */
  makeRef(): string {
    return String(++this.#ref);
  }

  /** @internal Sends a message now, or when the socket opens. */
  push(msg: Message): void {
    const frame = encode(msg, this.vsn);
    if (this.isConnected()) this.#conn?.send(frame);
    else this.#sendBuffer.push(frame);
  }

  /**
   * The page is back: a socket that looks open may have died while the device slept or
   * changed networks, so it is checked with a heartbeat at once (the latest one decides); a
   * closed one reconnects now instead of after its backoff.
   */
  #wake(): void {
    if (this.#closedByUser) return;
    if (typeof document !== 'undefined' && document.visibilityState === 'hidden') return;
    if (this.isConnected()) this.#beat(true);
    else {
      this.timers.clearTimeout(this.#reconnectTimer);
      this.#tries = 0;
      this.#drop();
      this.connect();
    }
  }

  #opened(): void {
    this.timers.clearTimeout(this.#connectTimer);
    this.#tries = 0;
    for (const frame of this.#sendBuffer.splice(0)) this.#conn?.send(frame);
    this.#pendingHeartbeat = null;
    this.#scheduleHeartbeat();
    for (const channel of this.channels) channel.socketOpened();
  }

  #scheduleHeartbeat(): void {
    this.timers.clearTimeout(this.#heartbeatTimer);
    const due = this.timers.now() + this.#interval;
    this.#heartbeatTimer = this.timers.setTimeout(() => {
      if (!this.isConnected()) return;
      // No reply since the last beat: the connection is dead (sleep, network change).
      if (this.#pendingHeartbeat) return this.#dead();
      // A beat a whole interval late: the page was asleep or frozen meanwhile.
      this.#beat(this.timers.now() - due > this.#interval);
    }, this.#interval);
  }

  /**
   * Sends a heartbeat. When `checking` (on wake, or a beat that came late) its reply is
   * awaited `timeout` ms, not a whole interval: without it the socket is dropped and a new
   * one opened at once (its channels rejoin).
   */
  #beat(checking: boolean): void {
    const ref = this.makeRef();
    this.#pendingHeartbeat = ref;
    this.push({ join_ref: null, ref, topic: 'phoenix', event: 'heartbeat', payload: {} });
    this.#scheduleHeartbeat();
    void this.sessionToken();
    if (!checking) return;
    this.timers.setTimeout(() => {
      if (this.#pendingHeartbeat === ref) {
        this.#dead();
        this.#wake();
      }
    }, this.timeout);
  }

  /** The open socket stopped answering: dropped, and replaced as after a loss. */
  #dead(): void {
    this.#pendingHeartbeat = null;
    const conn = this.#conn;
    this.#drop();
    if (conn) this.#closed(conn);
  }

  #receive(data: string | ArrayBuffer): void {
    const msg = decode(data, this.vsn);
    if (!msg) return;
    if (msg.topic === 'phoenix' && msg.ref === this.#pendingHeartbeat)
      this.#pendingHeartbeat = null;
    for (const channel of this.channels) if (channel.topic === msg.topic) channel.receive(msg);
  }

  /** Detaches and closes the current socket without waiting for its close event. */
  #drop(): void {
    const conn = this.#conn;
    this.#conn = undefined;
    this.timers.clearTimeout(this.#heartbeatTimer);
    if (!conn) return;
    conn.onopen = conn.onmessage = conn.onclose = null;
    conn.onerror = () => {}; // closing a connecting socket reports an error
    try {
      conn.close(1000, 'client closing');
    } catch {}
  }

  #closed(conn: WebSocketLike): void {
    if (this.#conn === conn) this.#conn = undefined;
    this.timers.clearTimeout(this.#heartbeatTimer);
    this.#sendBuffer = [];
    for (const channel of this.channels) channel.socketClosed();
    if (this.#closedByUser) return;
    this.timers.clearTimeout(this.#reconnectTimer);
    const delay = (this.#options.reconnectAfterMs ?? backoff)(++this.#tries);
    this.#reconnectTimer = this.timers.setTimeout(() => {
      if (!this.#closedByUser && !this.#conn) this.connect();
    }, delay);
  }
}
