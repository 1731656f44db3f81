/**
 * The parts of an `@app/backend-sdk` client the hooks use, described by shape so that the
 * hooks accept the SDK's client (and any client with the same method names).
 */

/** A `{ data, error }` result, the convention of every SDK call. */
export interface ResultLike<T> {
  data: T | null;
  error: unknown;
  /** Exact row count, when the query asked for one (`count: 'exact'`). */
  count?: number | null;
}

/** A signed-in user as the auth capability returns it. */
export interface UserLike {
  id: string;
  email?: string | undefined;
  user_metadata?: Record<string, unknown> | undefined;
  [key: string]: unknown;
}

/** A session as the auth capability returns it. */
export interface SessionLike {
  access_token: string;
  refresh_token?: string;
  expires_at?: number | undefined;
  user: UserLike;
  [key: string]: unknown;
}

/** The subscription handle `auth.onAuthStateChange` returns. */
export interface AuthSubscriptionLike {
  data: { subscription: { unsubscribe(): void } };
}

/** The auth capability, as far as the session hooks need it. */
export interface AuthLike {
  getSession(): PromiseLike<{ data: { session: SessionLike | null } | null; error: unknown }>;
  onAuthStateChange(
    callback: (event: string, session: SessionLike | null) => void,
  ): AuthSubscriptionLike;
}

/** A realtime channel, as far as the realtime hooks need it. */
export interface ChannelLike {
  // biome-ignore lint/suspicious/noExplicitAny: filters and payloads differ per event type.
  on(type: string, filter: any, callback: (payload: any) => void): unknown;
  subscribe(callback?: (status: string, error?: unknown) => void): unknown;
  unsubscribe(): unknown;
  presenceState?(): Record<string, unknown[]>;
  track?(payload: Record<string, unknown>): unknown;
}

/** A client that can open realtime channels. */
export interface RealtimeClientLike {
  // biome-ignore lint/suspicious/noExplicitAny: channel options differ per use.
  channel(name: string, options?: any): ChannelLike;
  removeChannel?(channel: ChannelLike): unknown;
}
