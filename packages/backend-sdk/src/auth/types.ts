/**
 * Types of the auth capability: the Session and User JSON of the auth server, events,
 * results and options.
 */
import type { AuthError } from '../errors';
import type { HttpOptions } from '../http/index';
import type { Timers } from '../timers';
import type { LockFn } from './lock';
import type { Factor } from './mfa';

/** An identity linked to a user (email, phone, OAuth provider…). */
export interface UserIdentity {
  identity_id: string;
  id: string;
  user_id: string;
  identity_data?: Record<string, unknown>;
  provider: string;
  created_at?: string;
  last_sign_in_at?: string;
  updated_at?: string;
  email?: string;
}

/** A user as the auth server returns it. */
export interface User {
  id: string;
  aud: string;
  role?: string;
  email?: string;
  phone?: string;
  app_metadata: { provider?: string; providers?: string[]; [key: string]: unknown };
  user_metadata: Record<string, unknown>;
  identities?: UserIdentity[];
  created_at: string;
  updated_at?: string;
  is_anonymous?: boolean;
  email_confirmed_at?: string;
  phone_confirmed_at?: string;
  confirmed_at?: string;
  last_sign_in_at?: string;
  confirmation_sent_at?: string;
  recovery_sent_at?: string;
  new_email?: string;
  new_phone?: string;
  /** MFA factors (left out when the user has none). */
  factors?: Factor[];
  [key: string]: unknown;
}

/** A signed-in session. */
export interface Session {
  access_token: string;
  refresh_token: string;
  token_type: string;
  /** Lifetime of the access token in seconds. */
  expires_in: number;
  /** Unix time (seconds) when the access token expires. */
  expires_at?: number;
  user: User;
  provider_token?: string | null;
  provider_refresh_token?: string | null;
  [key: string]: unknown;
}

/** Events of {@link AuthClient.onAuthStateChange}. */
export type AuthChangeEvent =
  | 'INITIAL_SESSION'
  | 'SIGNED_IN'
  | 'SIGNED_OUT'
  | 'TOKEN_REFRESHED'
  | 'USER_UPDATED'
  | 'PASSWORD_RECOVERY'
  | 'MFA_CHALLENGE_VERIFIED';

/** A listener of auth events; it may be async and may await SDK calls. */
export type AuthListener = (event: AuthChangeEvent, session: Session | null) => unknown;

/** `{ data, error }`: `data` on success; the same keys set to null with the error. */
export type AuthResult<T extends object> =
  | { data: T; error: null }
  | { data: { [K in keyof T]: null }; error: AuthError };

/** Session storage: the Web Storage subset the SDK uses; methods may be async. */
export interface SessionStorage {
  getItem(key: string): string | null | Promise<string | null>;
  setItem(key: string, value: string): void | Promise<void>;
  removeItem(key: string): void | Promise<void>;
}

/** OTP / link types accepted by `verifyOtp`. */
export type OtpType =
  | 'signup'
  | 'invite'
  | 'magiclink'
  | 'recovery'
  | 'email_change'
  | 'email'
  | 'sms'
  | 'phone_change';

/** Options of the auth capability. */
export interface AuthOptions {
  /** Where the session is kept; default localStorage in browsers, memory elsewhere. */
  storage?: SessionStorage;
  /** Storage key; default `sb-<first label of the host>-auth-token` as the official client. */
  storageKey?: string;
  /** Keep the session in storage (default true). */
  persistSession?: boolean;
  /** Refresh the access token before it expires (default true). */
  autoRefreshToken?: boolean;
  /**
   * In browsers, sign in from the page's URL when it is the redirect of an email link or
   * OAuth (`#access_token=…` in the implicit flow, `?code=…` in the PKCE flow), then take
   * those parameters out of the address bar (default true). The session is in place before
   * `INITIAL_SESSION`; `SIGNED_IN`, or `PASSWORD_RECOVERY` for a recovery link, follows.
   * Error redirects (`#error_code=…`) are left in the URL for the app to show.
   *
   * @example
   * createClient(url, anonKey, { auth: { detectSessionInUrl: false } }); // the app reads it
   */
  detectSessionInUrl?: boolean;
  /** `implicit` (default) or `pkce` for email links and OAuth. */
  flowType?: 'implicit' | 'pkce';
  /**
   * Share refreshed sessions and sign-outs with other tabs (BroadcastChannel named after the
   * storage key). Default: on when the storage is localStorage (shared by the tabs), off
   * otherwise. Turn it on for a custom storage that tabs share.
   */
  crossTab?: boolean;
  /** Cross-tab lock; default Web Locks where present, else an in-process lock. */
  lock?: LockFn;
  /**
   * How long to wait for the refresh lock before one waiting tab steals it from a holder
   * that hangs (ms, default 10000; keep it above `refreshTimeout`).
   *
   * @example
   * createClient(url, anonKey, { auth: { lockTimeout: 3000 } });
   */
  lockTimeout?: number;
  /**
   * How long one refresh request may take before it is given up and retried (ms, default
   * 5000), so a request stuck in the network never holds the refresh (and the other tabs)
   * up: the tab gives up and releases the lock instead of having it stolen.
   *
   * @example
   * createClient(url, anonKey, { auth: { refreshTimeout: 8000 } });
   */
  refreshTimeout?: number;
  /** Timers and clock (tests inject fake ones). */
  timers?: Timers;
}

/** Options of {@link createAuthClient}: HTTP options plus auth options. */
export interface AuthClientOptions
  extends Omit<HttpOptions, 'url' | 'key' | 'accessToken'>,
    AuthOptions {}

/** Email or phone credentials with a password. */
export type PasswordCredentials = ({ email: string } | { phone: string }) & {
  password: string;
  options?: { captchaToken?: string };
};

/** Sign-up credentials. */
export type SignUpCredentials = ({ email: string } | { phone: string }) & {
  password: string;
  options?: {
    data?: Record<string, unknown>;
    emailRedirectTo?: string;
    captchaToken?: string;
    channel?: 'sms' | 'whatsapp';
  };
};

/** Passwordless sign-in credentials. */
export type OtpCredentials = ({ email: string } | { phone: string }) & {
  options?: {
    data?: Record<string, unknown>;
    shouldCreateUser?: boolean;
    emailRedirectTo?: string;
    captchaToken?: string;
    channel?: 'sms' | 'whatsapp';
  };
};

/** Parameters of `verifyOtp`. */
export type VerifyOtpParams =
  | (({ email: string } | { phone: string }) & {
      token: string;
      type: OtpType;
      options?: { redirectTo?: string; captchaToken?: string };
    })
  | { token_hash: string; type: OtpType; options?: { redirectTo?: string } };

/** Attributes `updateUser` can change. */
export interface UserAttributes {
  email?: string;
  phone?: string;
  password?: string;
  current_password?: string;
  nonce?: string;
  data?: Record<string, unknown>;
}

/** `{ user, session }` of sign-in calls. */
export interface UserAndSession {
  user: User | null;
  session: Session | null;
}
