/**
 * The auth capability (GoTrue protocol under `/auth/v1`): the user and session methods, the
 * sign-in from a redirect, MFA and the admin API. The sign-in flows are in sign-in.ts
 * ({@link SignInClient}), session state in {@link SessionManager}.
 */
import { AuthError } from '../errors';
import { createHttp, type Http } from '../http/index';
import { AdminApi } from './admin';
import { asSession, attempt, authFetch, jwtPayload } from './api';
import { type ClaimsResult, type GetClaimsOptions, verifyClaims } from './claims';
import { MfaApi, type MfaResult, run } from './mfa';
import type { SignInWithIdTokenCredentials, SignInWithOAuthCredentials } from './oauth';
import { none, SignInClient } from './sign-in';
import type {
  AuthClientOptions,
  AuthOptions,
  AuthResult,
  Session,
  User,
  UserAndSession,
  UserAttributes,
  UserIdentity,
} from './types';
import { readAuthRedirect } from './url';

/** The auth client of one project. */
export class AuthClient extends SignInClient {
  /** Admin API (needs the service role key as the client's key). */
  readonly admin: AdminApi;
  /** Multi-factor authentication of the signed-in user (TOTP and phone factors). */
  readonly mfa: MfaApi;

  constructor(http: Http, options: AuthOptions = {}) {
    super(http, options);
    this.admin = new AdminApi(http);
    this.mfa = new MfaApi({
      http,
      now: () => this.timers.now(),
      requireSession: () => this.requireSession(),
      getSession: () => this.getSession(),
      getUser: (jwt) => this.getUser(jwt),
      verified: (session) => this.saveSession(session, 'MFA_CHALLENGE_VERIFIED'),
    });
  }

  /**
   * The signed-in session or an `AuthSessionMissing` error.
   *
   * @internal for `@app/backend-sdk/webauthn` (the passkey calls need a session).
   */
  async requireSession(): Promise<Session> {
    const { data, error } = await this.getSession();
    if (error) throw error;
    if (!data.session)
      throw new AuthError('Auth session missing!', { status: 400, code: 'session_missing' });
    return data.session;
  }

  /**
   * Links another identity to the signed-in user (the project must allow manual linking):
   * with `token`, an ID token at once (emits USER_UPDATED); else a provider's redirect, as
   * {@link signInWithOAuth}.
   *
   * @example
   * await auth.linkIdentity({ provider: 'google', options: { redirectTo: location.href } });
   */
  linkIdentity(credentials: SignInWithIdTokenCredentials): Promise<AuthResult<UserAndSession>>;
  linkIdentity(
    credentials: SignInWithOAuthCredentials,
  ): Promise<AuthResult<{ provider: string; url: string }>>;
  linkIdentity(
    credentials: SignInWithOAuthCredentials | SignInWithIdTokenCredentials,
  ): Promise<AuthResult<object>> {
    const empty = 'token' in credentials ? none : { provider: null, url: null };
    return attempt<object>(empty, async () => {
      const { access_token } = await this.requireSession();
      return 'token' in credentials
        ? this.signedIn(await this.idToken(credentials, access_token), 'USER_UPDATED')
        : this.toProvider(credentials, access_token);
    });
  }

  /**
   * Unlinks an identity of the signed-in user (not the last one).
   *
   * @example
   * await auth.unlinkIdentity(identities.find((i) => i.provider === 'github'));
   */
  unlinkIdentity(identity: UserIdentity): Promise<MfaResult<Record<string, never>>> {
    return run(async () => {
      const { access_token } = await this.requireSession();
      await authFetch(this.http, {
        method: 'DELETE',
        path: `/user/identities/${encodeURIComponent(identity.identity_id)}`,
        token: access_token,
      });
      return {};
    });
  }

  /**
   * The identities linked to the signed-in user (fetched from the server).
   *
   * @example
   * const { data } = await auth.getUserIdentities();
   */
  getUserIdentities(): Promise<MfaResult<{ identities: UserIdentity[] }>> {
    return run(async () => {
      const { data, error } = await this.getUser();
      if (error) throw error;
      return { identities: data.user.identities ?? [] };
    });
  }

  /**
   * The user of the session (or of `jwt`), fetched from the server.
   *
   * @example
   * const { data: { user } } = await auth.getUser();
   */
  getUser(jwt?: string): Promise<AuthResult<{ user: User }>> {
    return attempt({ user: null }, async () => {
      const token = jwt ?? (await this.requireSession()).access_token;
      try {
        const user = (await authFetch(this.http, { path: '/user', token })) as User;
        return { user };
      } catch (e) {
        if (!jwt && (e as AuthError).code === 'session_not_found') await this.removeSession();
        throw e;
      }
    });
  }

  /**
   * The verified claims of the session's access token (or of `jwt`): asymmetric tokens
   * (ES256, RS256) are verified locally with WebCrypto and the project's cached JWKS, others
   * by the server. `{ data: null, error: null }` when signed out.
   *
   * @example
   * const { data, error } = await auth.getClaims();
   * if (data) console.log(data.claims.sub, data.claims.role);
   */
  async getClaims(jwt?: string, options: GetClaimsOptions = {}): Promise<ClaimsResult> {
    let token = jwt;
    if (!token) {
      const { data, error } = await this.getSession();
      if (error || !data.session) return { data: null, error };
      token = data.session.access_token;
    }
    const check = async (t: string) => (await this.getUser(t)).error;
    return verifyClaims(this.http, token, this.timers.now(), check, options);
  }

  /**
   * Updates the signed-in user (email, phone, password, metadata); emits USER_UPDATED.
   *
   * @example
   * await auth.updateUser({ data: { name: 'Ada' } });
   */
  updateUser(
    attributes: UserAttributes,
    options: { emailRedirectTo?: string } = {},
  ): Promise<AuthResult<{ user: User }>> {
    return attempt({ user: null }, async () => {
      const session = await this.requireSession();
      const user = (await authFetch(this.http, {
        method: 'PUT',
        path: '/user',
        query: { redirect_to: options.emailRedirectTo },
        token: session.access_token,
        body: {
          ...attributes,
          ...(attributes.email
            ? await this.pkce()
            : { code_challenge: null, code_challenge_method: null }),
        },
      })) as User;
      await this.saveSession({ ...session, user }, 'USER_UPDATED');
      return { user };
    });
  }

  /**
   * Sends the signed-in user a reauthentication code (by mail, or by SMS to a phone-only
   * user). Where the project requires it for password changes on sessions older than 24 h,
   * pass the code to `updateUser` as `nonce`.
   *
   * @example
   * await auth.reauthenticate();
   * await auth.updateUser({ password: 'a new password', nonce: codeFromTheMail });
   */
  reauthenticate(): Promise<AuthResult<UserAndSession>> {
    return attempt<UserAndSession>(none, async () => {
      const { access_token } = await this.requireSession();
      await authFetch(this.http, { method: 'GET', path: '/reauthenticate', token: access_token });
      return none;
    });
  }

  /**
   * Sets the session from tokens (e.g. from another context); refreshes it when expired.
   *
   * @example
   * await auth.setSession({ access_token, refresh_token });
   */
  setSession(tokens: {
    access_token: string;
    refresh_token: string;
  }): Promise<AuthResult<UserAndSession>> {
    return attempt(none, async () => {
      const session = await this.sessionOf(tokens);
      if (session.refresh_token === tokens.refresh_token)
        await this.saveSession(session, 'SIGNED_IN');
      return { user: session.user, session };
    });
  }

  /** The session of a token pair: its user, or a refresh when the access token expired. */
  private async sessionOf(tokens: { access_token: string; refresh_token: string }) {
    const claims = jwtPayload(tokens.access_token);
    if (!claims || !tokens.refresh_token)
      throw new AuthError('Invalid session tokens', { status: 400, code: 'invalid_argument' });
    const now = Math.round(this.timers.now() / 1000);
    const exp = Number(claims.exp ?? 0);
    if (exp <= now) {
      const r = await this.refreshWith(tokens.refresh_token);
      if (r.error || !r.data.session) throw r.error ?? new AuthError('No session', { status: 500 });
      return r.data.session;
    }
    const user = (await authFetch(this.http, {
      path: '/user',
      token: tokens.access_token,
    })) as User;
    const session: Session = {
      access_token: tokens.access_token,
      refresh_token: tokens.refresh_token,
      token_type: 'bearer',
      expires_in: exp - now,
      expires_at: exp,
      user,
    };
    return session;
  }

  /**
   * Exchanges the `code` of a PKCE redirect for a session (the verifier is in storage).
   *
   * @example
   * const code = new URL(location.href).searchParams.get('code');
   * if (code) await auth.exchangeCodeForSession(code);
   */
  exchangeCodeForSession(
    authCode: string,
  ): Promise<AuthResult<UserAndSession & { redirectType: string | null }>> {
    return attempt({ ...none, redirectType: null }, async () => {
      const { body, redirectType } = await this.exchange(authCode);
      const recovery = redirectType === 'PASSWORD_RECOVERY';
      const r = await this.signedIn(body, recovery ? 'PASSWORD_RECOVERY' : 'SIGNED_IN');
      return { ...r, redirectType };
    });
  }

  /** Trades a PKCE code and the stored verifier for the token response. */
  private async exchange(authCode: string) {
    const key = `${this.storageKey}-code-verifier`;
    const stored = (await this.storage.getItem(key)) ?? '';
    const [verifier, redirectType] = stored.split('/');
    if (!verifier)
      throw new AuthError('PKCE code verifier not found in storage', {
        status: 400,
        code: 'pkce_verifier_missing',
      });
    const body = await this.grant('pkce', { auth_code: authCode, code_verifier: verifier });
    await this.storage.removeItem(key);
    return { body, redirectType: redirectType ?? null };
  }

  /**
   * Signs in from the page's URL when it is an email link's or OAuth's redirect (see
   * `detectSessionInUrl`), takes the sign-in parameters out of the address bar, and emits
   * SIGNED_IN (PASSWORD_RECOVERY for a recovery link) after INITIAL_SESSION.
   */
  protected override async fromRedirect(): Promise<boolean> {
    const { location, history } = globalThis as {
      location?: { href: string };
      history?: { state: unknown; replaceState(s: unknown, t: string, u: string): void };
    };
    if (this.options.detectSessionInUrl === false || !location?.href || !history) return false;
    const found = readAuthRedirect(location.href);
    if (!found || (found.kind === 'code' && this.options.flowType !== 'pkce')) return false;
    let session: Session | null;
    let recovery: boolean;
    if (found.kind === 'tokens') {
      const p = found.params;
      const get = (k: string) => p.get(k) ?? undefined;
      // OAuth redirects also carry the provider's tokens, kept with the session.
      session = {
        ...(await this.sessionOf({
          access_token: p.get('access_token') ?? '',
          refresh_token: p.get('refresh_token') ?? '',
        })),
        provider_token: get('provider_token'),
        provider_refresh_token: get('provider_refresh_token'),
      };
      recovery = found.type === 'recovery';
    } else {
      const { body, redirectType } = await this.exchange(found.code);
      session = asSession(body, this.timers.now());
      recovery = redirectType === 'PASSWORD_RECOVERY';
    }
    history.replaceState(history.state, '', found.clean);
    if (!session) return false;
    await this.saveSession(session);
    const signedIn = session;
    void this.ready.then(() =>
      this.timers.setTimeout(
        () => this.emit(recovery ? 'PASSWORD_RECOVERY' : 'SIGNED_IN', signedIn),
        0,
      ),
    );
    return true;
  }
}

/**
 * An auth client alone.
 *
 * @example
 * import { createAuthClient } from '@app/backend-sdk/auth';
 * const auth = createAuthClient('http://127.0.0.1:54321', anonKey);
 * await auth.signInWithPassword({ email, password });
 */
export function createAuthClient(
  url: string,
  key: string,
  options: AuthClientOptions = {},
): AuthClient {
  return new AuthClient(createHttp({ ...options, url, key }), options);
}
