/**
 * The SDK client as Drive uses it: the method names of `@app/backend-sdk` (which mirror the
 * official client's), typed loosely where the SDK's own generics would otherwise need a
 * generated `Database` type.
 */
import type {
  ChannelLike,
  MfaLike,
  OAuthConsentAuthLike,
  PasskeyAuthLike,
  ResultLike,
  SessionLike,
  UserLike,
} from '@app/backend-react';

/** A PostgREST query being built; awaiting it runs it. */
export interface Query<T = unknown> extends PromiseLike<ResultLike<T>> {
  select(columns?: string, options?: { count?: 'exact' | 'planned' | 'estimated' }): Query<T>;
  eq(column: string, value: unknown): Query<T>;
  neq(column: string, value: unknown): Query<T>;
  is(column: string, value: null | boolean): Query<T>;
  not(column: string, operator: string, value: unknown): Query<T>;
  in(column: string, values: readonly unknown[]): Query<T>;
  ilike(column: string, pattern: string): Query<T>;
  or(filters: string): Query<T>;
  order(column: string, options?: { ascending?: boolean; nullsFirst?: boolean }): Query<T>;
  range(from: number, to: number): Query<T>;
  limit(count: number): Query<T>;
  // biome-ignore lint/suspicious/noExplicitAny: row types are cast at the call sites.
  single(): Query<any>;
  // biome-ignore lint/suspicious/noExplicitAny: row types are cast at the call sites.
  maybeSingle(): Query<any>;
}

export interface Table {
  select(columns?: string, options?: { count?: 'exact'; head?: boolean }): Query;
  insert(values: Record<string, unknown> | Record<string, unknown>[]): Query;
  update(values: Record<string, unknown>): Query;
  upsert(values: Record<string, unknown> | Record<string, unknown>[]): Query;
  delete(): Query;
}

export interface AuthApi {
  getSession(): Promise<{ data: { session: SessionLike | null }; error: unknown }>;
  onAuthStateChange(callback: (event: string, session: SessionLike | null) => void): {
    data: { subscription: { unsubscribe(): void } };
  };
  signUp(credentials: {
    email: string;
    password: string;
    options?: { data?: Record<string, unknown> };
  }): Promise<ResultLike<{ session: SessionLike | null; user: UserLike | null }>>;
  signInWithPassword(credentials: {
    email: string;
    password: string;
  }): Promise<ResultLike<{ session: SessionLike | null }>>;
  signOut(options?: { scope?: 'global' | 'local' | 'others' }): Promise<{ error: unknown }>;
  resetPasswordForEmail(
    email: string,
    options?: { redirectTo?: string },
  ): Promise<ResultLike<unknown>>;
  updateUser(attributes: {
    email?: string;
    password?: string;
    data?: Record<string, unknown>;
  }): Promise<ResultLike<{ user: UserLike | null }>>;
  verifyOtp?(params: Record<string, unknown>): Promise<ResultLike<unknown>>;
  setSession(tokens: { access_token: string; refresh_token: string }): Promise<ResultLike<unknown>>;
  /** 2-step verification (authenticator-app factors). */
  mfa: MfaLike;
  /** Passkeys: sign-in, and the user's passkeys in Settings. */
  passkey: PasskeyAuthLike['passkey'];
  signInWithPasskey: PasskeyAuthLike['signInWithPasskey'];
  registerPasskey: PasskeyAuthLike['registerPasskey'];
  /** The consent page of the OAuth 2.1 server (other apps signing in with Drive). */
  oauth: OAuthConsentAuthLike['oauth'];
  /** Sign-in with a provider (GitHub, Google, …): the page goes to the provider. */
  signInWithOAuth(credentials: {
    provider: string;
    options?: { redirectTo?: string };
  }): Promise<ResultLike<{ provider: string | null; url: string | null }>>;
}

/** A controllable resumable upload (tus). */
export interface ResumableUpload {
  pause(): unknown;
  resume(): unknown;
  abort(): unknown;
}

export interface Bucket {
  createSignedUrl(
    path: string,
    expiresIn: number,
    options?: {
      download?: string | boolean;
      transform?: { width?: number; height?: number; resize?: 'cover' | 'contain' | 'fill' };
    },
  ): Promise<ResultLike<{ signedUrl: string }>>;
  createSignedUrls(
    paths: string[],
    expiresIn: number,
  ): Promise<
    ResultLike<Array<{ path: string | null; signedUrl: string | null; error: string | null }>>
  >;
  download(path: string): Promise<ResultLike<Blob>>;
  remove(paths: string[]): Promise<ResultLike<unknown>>;
  // biome-ignore lint/suspicious/noExplicitAny: the options of the SDK's resumable upload.
  uploadResumable(path: string, data: Blob, options?: any): any;
}

export interface DriveClient {
  auth: AuthApi;
  from(table: string): Table;
  rpc(fn: string, args?: Record<string, unknown>): Query;
  storage: { from(bucket: string): Bucket };
  functions: {
    invoke(
      name: string,
      options?: { body?: unknown; method?: string },
    ): Promise<ResultLike<unknown>>;
  };
  // biome-ignore lint/suspicious/noExplicitAny: channel options differ per use.
  channel(name: string, options?: any): ChannelLike;
  removeChannel(channel: ChannelLike): unknown;
}
