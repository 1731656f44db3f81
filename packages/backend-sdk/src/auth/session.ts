/**
 * Session state of the auth capability: storage, events, auto refresh, and the
 * single-flight refresh: one request per tab through a promise, one per browser through a
 * lock (stolen by one successor when its holder hangs). Under the lock a tab first looks for
 * a newer session from any channel (its own copy, updated by BroadcastChannel, and storage);
 * a mark held by the tab that rotated a token tells the next ones that a new session is on
 * its way, even before it reached them. Each request is bounded in time, and a refresh that
 * fails adopts the session another tab stored before it signs out. Listeners are never
 * awaited while a lock or a refresh is held, so a listener may await any SDK call.
 */
import { AuthError } from '../errors';
import type { Http } from '../http/index';
import { systemTimers, type Timers } from '../timers';
import { asSession, attempt, authFetch, isRetryable } from './api';
import { type Broadcast, fingerprint, waitForArrival } from './cross-tab';
import { defaultLock, type LockFn, type Marks, webMarks } from './lock';
import { createScheduler, refreshMargin, type Scheduler } from './refresh';
import { defaultStorage } from './storage';
import type {
  AuthChangeEvent,
  AuthListener,
  AuthOptions,
  AuthResult,
  Session,
  SessionStorage,
  UserAndSession,
} from './types';

/** The session half of the auth client (the API calls live in {@link AuthClient}). */
export class SessionManager {
  /** The HTTP layer auth requests go through. */
  readonly http: Http;
  /** Where the session is stored. */
  readonly storageKey: string;
  /** Resolves once the stored session is loaded (and refreshed when it had expired). */
  readonly ready: Promise<void>;
  protected readonly storage: SessionStorage;
  protected readonly timers: Timers;
  protected readonly options: AuthOptions;
  private session: Session | null = null;
  private readonly listeners = new Map<string, AuthListener>();
  private nextId = 0;
  private refreshing: Promise<AuthResult<UserAndSession>> | null = null;
  private readonly lock: LockFn;
  private readonly marks: Marks | null = null;
  private readonly scheduler: Scheduler;
  private readonly channel: BroadcastChannel | null = null;
  /** Wakes refreshes waiting for another tab's session (broadcast or storage event). */
  private readonly arrivals = new Set<() => void>();
  private readonly onStorage = (e: { key?: string | null }) => {
    if (e.key === this.storageKey) this.notify();
  };
  private autoRefresh: boolean;

  constructor(http: Http, options: AuthOptions = {}) {
    this.http = http;
    this.options = options;
    this.storageKey =
      options.storageKey ?? `sb-${new URL(http.url).hostname.split('.')[0]}-auth-token`;
    this.storage = options.storage ?? defaultStorage();
    this.timers = options.timers ?? systemTimers;
    this.autoRefresh = options.autoRefreshToken !== false;
    this.scheduler = createScheduler(this.timers, () => this.refreshDue());
    // Share sessions with other tabs only when the storage is shared with them (by default
    // localStorage); unrelated clients in one process (e.g. per-request clients on a server)
    // must never adopt each other's sessions.
    const shared =
      options.crossTab ?? this.storage === (globalThis as { localStorage?: unknown }).localStorage;
    // Without shared storage the in-tab single flight is all the exclusion needed.
    this.lock = options.lock ?? (shared ? defaultLock() : (_name, _timeout, fn) => fn());
    if (shared && !options.lock) this.marks = webMarks();
    if (shared && typeof BroadcastChannel !== 'undefined' && options.persistSession !== false) {
      const channel = new BroadcastChannel(this.storageKey);
      channel.onmessage = (e: MessageEvent<Broadcast>) => this.adopt(e.data);
      (channel as { unref?: () => void }).unref?.();
      this.channel = channel;
    }
    if (shared && typeof window !== 'undefined') addEventListener('storage', this.onStorage);
    // Loading never rejects (a broken storage reads as signed out).
    this.ready = this.load().catch(() => {});
  }

  private async load(): Promise<void> {
    // A sign-in link's redirect wins over the stored session; a link that fails to sign in
    // (expired, already used) leaves the stored session as it was.
    if (await this.fromRedirect().catch(() => false)) return;
    const stored = await this.readStored();
    if (!stored) return;
    this.session = stored;
    if (this.expiring(stored)) await this.refreshWith(stored.refresh_token);
    else this.arm(stored);
  }

  /** Signs in from the page's URL when it is a sign-in redirect; true when it did. */
  protected async fromRedirect(): Promise<boolean> {
    return false;
  }

  /** The session in storage, or null. */
  protected async readStored(): Promise<Session | null> {
    if (this.options.persistSession === false) return this.session;
    try {
      const raw = await this.storage.getItem(this.storageKey);
      const s = raw ? (JSON.parse(raw) as Session) : null;
      return s?.access_token && s.refresh_token ? s : null;
    } catch {
      return null;
    }
  }

  /** The current session without refreshing it (null before `ready` or when signed out). */
  protected current(): Session | null {
    return this.session;
  }

  /** Does `s` expire within the refresh margin? */
  protected expiring(s: Session): boolean {
    return (s.expires_at ?? 0) * 1000 - this.timers.now() < refreshMargin(s.expires_in);
  }

  private arm(s: Session) {
    if (this.autoRefresh) this.scheduler.schedule((s.expires_at ?? 0) * 1000, s.expires_in);
  }

  /** Stores `session`, tells other tabs, and emits `event` when given. */
  protected async saveSession(session: Session, event?: AuthChangeEvent): Promise<void> {
    this.session = session;
    if (this.options.persistSession !== false)
      await this.storage.setItem(this.storageKey, JSON.stringify(session));
    this.arm(session);
    if (event) {
      this.channel?.postMessage({ event, session } satisfies Broadcast);
      this.emit(event, session);
    }
  }

  /** Forgets the session everywhere and emits SIGNED_OUT. */
  protected async removeSession(): Promise<void> {
    const had = this.session !== null;
    this.session = null;
    this.scheduler.stop();
    this.marks?.release();
    if (this.options.persistSession !== false) await this.storage.removeItem(this.storageKey);
    this.channel?.postMessage({ event: 'SIGNED_OUT', session: null } satisfies Broadcast);
    if (had) this.emit('SIGNED_OUT', null);
  }

  /** A session or sign-out broadcast by another tab. */
  private adopt({ event, session }: Broadcast) {
    if (session?.refresh_token === this.session?.refresh_token) return;
    this.session = session;
    this.marks?.release();
    if (session) this.arm(session);
    else this.scheduler.stop();
    this.notify();
    this.emit(event, session);
  }

  private notify() {
    for (const wake of [...this.arrivals]) wake();
  }

  /** Calls every listener; never awaits them, never lets one's failure escape. */
  protected emit(event: AuthChangeEvent, session: Session | null): void {
    for (const listener of [...this.listeners.values()]) this.call(listener, event, session);
  }

  private call(listener: AuthListener, event: AuthChangeEvent, session: Session | null) {
    const report = (e: unknown) => console.error('[backend-sdk] auth listener failed:', e);
    try {
      Promise.resolve(listener(event, session)).catch(report);
    } catch (e) {
      report(e);
    }
  }

  /**
   * Listens to auth events. The listener first gets INITIAL_SESSION (once the stored session
   * is loaded), then SIGNED_IN, SIGNED_OUT, TOKEN_REFRESHED, USER_UPDATED, PASSWORD_RECOVERY.
   *
   * @example
   * const { data } = auth.onAuthStateChange((event, session) => console.log(event));
   * data.subscription.unsubscribe();
   */
  onAuthStateChange(listener: AuthListener): {
    data: { subscription: { id: string; unsubscribe: () => void } };
  } {
    const id = String(++this.nextId);
    this.listeners.set(id, listener);
    this.ready.then(() => {
      if (this.listeners.get(id) === listener) this.call(listener, 'INITIAL_SESSION', this.session);
    });
    return { data: { subscription: { id, unsubscribe: () => this.listeners.delete(id) } } };
  }

  /**
   * The current session, refreshed first when it is about to expire.
   *
   * @example
   * const { data: { session } } = await auth.getSession();
   */
  async getSession(): Promise<AuthResult<{ session: Session | null }>> {
    await this.ready;
    const s = this.session;
    if (!s || !this.expiring(s)) return { data: { session: s }, error: null };
    const r = await this.refreshWith(s.refresh_token);
    return r.error
      ? { data: { session: null }, error: r.error }
      : { data: { session: r.data.session }, error: null };
  }

  /** The access token of the current session (refreshed if due), or null. */
  async getAccessToken(): Promise<string | null> {
    return (await this.getSession()).data.session?.access_token ?? null;
  }

  /**
   * Refreshes with `refreshToken`; concurrent calls share one request (single flight). Each
   * try holds the cross-tab lock for one bounded request; retries take the lock again, so
   * they first see what other tabs did meanwhile.
   */
  protected refreshWith(refreshToken: string): Promise<AuthResult<UserAndSession>> {
    // The session's own token (or none loaded): other tabs' sessions may replace it. A token
    // given explicitly (refreshSession({ refresh_token })) is refreshed as it is.
    const shared = !this.session || this.session.refresh_token === refreshToken;
    this.refreshing ??= (async () => {
      for (let n = 0; ; n++) {
        const r = await this.lock(
          `lock:${this.storageKey}`,
          this.options.lockTimeout ?? 10_000,
          () => this.refreshLocked(refreshToken, shared),
        );
        if (!r.error || !isRetryable(r.error) || n >= 4) return r;
        await new Promise((resolve) => this.timers.setTimeout(() => resolve(0), 200 * 2 ** n));
      }
    })().finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }

  private mark(token: string): string {
    return `lock:${this.storageKey}:rotated:${fingerprint(token)}`;
  }

  /**
   * The newest session this tab knows (its own copy, kept current by other tabs' broadcasts,
   * or storage) other than the one of `token`, when it is newer than that one.
   */
  private async newerThan(token: string): Promise<Session | null> {
    const mine = this.session?.refresh_token === token ? this.session : null;
    const found = [this.session, await this.readStored()].filter(
      (s): s is Session =>
        !!s && s.refresh_token !== token && (s.expires_at ?? 0) >= (mine?.expires_at ?? 0),
    );
    return found.sort((a, b) => (b.expires_at ?? 0) - (a.expires_at ?? 0))[0] ?? null;
  }

  /**
   * The session another tab made from `token`: known already, or on its way when a tab holds
   * the mark of `token`'s rotation (waits for the broadcast or storage event, at most `ms`).
   */
  private async successorOf(token: string, ms: number): Promise<Session | null> {
    const deadline = this.timers.now() + ms;
    for (let first = true; ; first = false) {
      const newer = await this.newerThan(token);
      if (newer || (first && !(await this.marks?.has(this.mark(token))))) return newer;
      const left = deadline - this.timers.now();
      if (left <= 0) return null;
      await waitForArrival(this.arrivals, this.timers, left);
    }
  }

  /** Takes `session` (made by another tab) as this tab's. */
  private take(session: Session): AuthResult<UserAndSession> {
    this.adopt({ event: 'TOKEN_REFRESHED', session });
    return { data: { user: session.user, session }, error: null };
  }

  private async refreshLocked(token: string, shared: boolean): Promise<AuthResult<UserAndSession>> {
    const bound = this.options.refreshTimeout ?? 5000;
    // A new session made by another tab reaches this one in milliseconds.
    const arrival = Math.min(bound, 2000);
    // Another tab may have refreshed while this one waited for the lock.
    let next = shared ? await this.successorOf(token, arrival) : null;
    if (next && !this.expiring(next)) return this.take(next);
    // Never refresh an older token than the newest one known.
    if (next) token = next.refresh_token;
    const had = this.session;
    const r = await attempt({ user: null, session: null }, async () => {
      const body = await authFetch(this.http, {
        method: 'POST',
        path: '/token',
        query: { grant_type: 'refresh_token' },
        body: { refresh_token: token },
        timeout: bound,
      });
      const session = asSession(body, this.timers.now());
      if (!session) throw new AuthError('The auth server returned no session', { status: 500 });
      // Signed out (here or in another tab) while the request was out: keep it that way.
      if (had && !this.session)
        throw new AuthError('Auth session missing!', { status: 400, code: 'session_missing' });
      await this.saveSession(session, 'TOKEN_REFRESHED');
      // Tabs that take the lock next learn from this mark that `token` is spent.
      await this.marks?.hold(this.mark(token));
      return { user: session.user, session };
    });
    if (!r.error) return r;
    // A slow or refused refresh: another tab may have made the new session meanwhile (the
    // token is then already used); adopt it rather than failing or signing out.
    next = shared ? await this.successorOf(token, isRetryable(r.error) ? 0 : arrival) : null;
    if (next && !this.expiring(next)) return this.take(next);
    if (!isRetryable(r.error) && this.session?.refresh_token === token)
      await this.removeSession().catch(() => {}); // signed out even if storage fails
    return r;
  }

  private async refreshDue(): Promise<boolean> {
    const s = this.session;
    if (!s) return true;
    const r = await this.refreshWith(s.refresh_token);
    return !r.error || !isRetryable(r.error);
  }

  /**
   * Refreshes the session now (the current one, or the one whose refresh token is given).
   *
   * @example
   * const { data: { session } } = await auth.refreshSession();
   */
  async refreshSession(current?: { refresh_token: string }): Promise<AuthResult<UserAndSession>> {
    await this.ready;
    const token = current?.refresh_token ?? this.current()?.refresh_token;
    if (!token)
      return {
        data: { user: null, session: null },
        error: new AuthError('Auth session missing!', { status: 400, code: 'session_missing' }),
      };
    return this.refreshWith(token);
  }

  /**
   * Signs out: `global` (every session of the user, default), `local` (this one), or
   * `others`. The local session is removed (except with `others`) unless the server call
   * fails for another reason than an already-invalid session.
   *
   * @example
   * await auth.signOut({ scope: 'local' });
   */
  async signOut(
    options: { scope?: 'global' | 'local' | 'others' } = {},
  ): Promise<{ error: AuthError | null }> {
    await this.ready;
    const scope = options.scope ?? 'global';
    const session = this.current();
    let error: AuthError | null = null;
    if (session) {
      const r = await attempt({}, () =>
        authFetch(this.http, {
          method: 'POST',
          path: '/logout',
          query: { scope },
          token: session.access_token,
        }).then(() => ({})),
      );
      // An already-invalid session is signed out anyway, as the official client does.
      if (r.error && ![401, 403, 404].includes(r.error.status)) error = r.error;
    }
    if (scope !== 'others' && !error) await this.removeSession();
    return { error };
  }

  /** Starts refreshing the token before it expires (on by default). */
  startAutoRefresh(): void {
    this.autoRefresh = true;
    if (this.session) this.arm(this.session);
  }

  /** Stops the automatic refresh (e.g. while a page is hidden). */
  stopAutoRefresh(): void {
    this.autoRefresh = false;
    this.scheduler.stop();
  }

  /** Stops timers and closes the cross-tab channel. */
  dispose(): void {
    this.scheduler.stop();
    this.marks?.release();
    if (typeof window !== 'undefined') removeEventListener('storage', this.onStorage);
    this.channel?.close();
    this.listeners.clear();
  }
}
