/**
 * The auth capability (GoTrue protocol under `/auth/v1`): sign-up and sign-in flows, user
 * updates, sign-out, PKCE, and the admin API. Session state lives in {@link SessionManager}.
 */
import { AuthError } from '../errors';
import { createHttp, type Http } from '../http/index';
import { AdminApi } from './admin';
import { asSession, attempt, authFetch, jwtPayload, toQuery } from './api';
import { type ClaimsResult, type GetClaimsOptions, verifyClaims } from './claims';
import { MfaApi, type MfaResult, run } from './mfa';
import {
  goTo,
  oauthQuery,
  type SignInWithIdTokenCredentials,
  type SignInWithOAuthCredentials,
  type SignInWithSSO,
  type SignInWithWeb3Credentials,
  web3Signature,
} from './oauth';
import { challengeOf, createVerifier } from './pkce';
import { SessionManager } from './session';
import type {
  AuthClientOptions,
  AuthOptions,
  AuthResult,
  OtpCredentials,
  PasswordCredentials,
  Session,
  SignUpCredentials,
  User,
  UserAndSession,
  UserAttributes,
  UserIdentity,
  VerifyOtpParams,
} from './types';
import { readAuthRedirect } from './url';

const RECOVERY = '/PASSWORD_RECOVERY';
const none = { user: null, session: null };
const captcha = (o?: { captchaToken?: string }) => ({ captcha_token: o?.captchaToken });

/** The auth client of one project. */
/** Options of an anonymous sign-in. */
interface AnonymousOptions {
  /** User metadata of the new anonymous user. */
  data?: Record<string, unknown>;
  captchaToken?: string;
}

export class AuthClient extends SessionManager {
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

  /** `code_challenge` + method for PKCE flows (nulls in the implicit flow). */
  private async pkce(recovery = false) {
    if (this.options.flowType !== 'pkce')
      return { code_challenge: null, code_challenge_method: null };
    const verifier = createVerifier();
    await this.storage.setItem(
      `${this.storageKey}-code-verifier`,
      verifier + (recovery ? RECOVERY : ''),
    );
    const [challenge, method] = await challengeOf(verifier);
    return { code_challenge: challenge, code_challenge_method: method };
  }

  /**
   * Saves the session of a sign-in response and returns `{ user, session }`.
   *
   * @internal for `@app/backend-sdk/webauthn`, whose passkey sign-in signs in this client.
   */
  async signedIn(
    body: unknown,
    event: 'SIGNED_IN' | 'PASSWORD_RECOVERY' | 'USER_UPDATED' = 'SIGNED_IN',
  ) {
    const session = asSession(body, this.timers.now());
    if (session) await this.saveSession(session, event);
    const bare = (body as { id?: string } | null)?.id ? (body as User) : null;
    return { user: session?.user ?? bare, session };
  }

  /**
   * Creates a user with email or phone and password. With auto-confirm on, signs in.
   *
   * @example
   * const { data, error } = await auth.signUp({ email: 'a@example.com', password: 'secret1' });
   */
  signUp(credentials: SignUpCredentials): Promise<AuthResult<UserAndSession>> {
    return attempt(none, async () => {
      const { options, password } = credentials;
      const who =
        'email' in credentials ? { email: credentials.email } : { phone: credentials.phone };
      const body = await authFetch(this.http, {
        method: 'POST',
        path: '/signup',
        query: { redirect_to: options?.emailRedirectTo },
        body: {
          ...who,
          password,
          data: options?.data ?? {},
          gotrue_meta_security: captcha(options),
          ...('email' in credentials ? await this.pkce() : { channel: options?.channel ?? 'sms' }),
        },
      });
      return this.signedIn(body);
    });
  }

  /**
   * Signs in with email or phone and password.
   *
   * @example
   * const { data: { session }, error } = await auth.signInWithPassword({ email, password });
   */
  signInWithPassword(credentials: PasswordCredentials): Promise<AuthResult<UserAndSession>> {
    return attempt(none, async () => {
      const who =
        'email' in credentials ? { email: credentials.email } : { phone: credentials.phone };
      const body = await this.grant('password', {
        ...who,
        password: credentials.password,
        gotrue_meta_security: captcha(credentials.options),
      });
      return this.signedIn(body);
    });
  }

  /**
   * Sends a one-time code / magic link by email, or a code by SMS.
   *
   * @example
   * await auth.signInWithOtp({ email: 'a@example.com' });
   */
  signInWithOtp(
    credentials: OtpCredentials,
  ): Promise<AuthResult<UserAndSession & { messageId?: string }>> {
    return attempt<UserAndSession & { messageId?: string }>(none, async () => {
      const o = credentials.options;
      const common = {
        data: o?.data ?? {},
        create_user: o?.shouldCreateUser ?? true,
        gotrue_meta_security: captcha(o),
      };
      const body =
        'email' in credentials
          ? { email: credentials.email, ...common, ...(await this.pkce()) }
          : { phone: credentials.phone, ...common, channel: o?.channel ?? 'sms' };
      const res = (await authFetch(this.http, {
        method: 'POST',
        path: '/otp',
        query: { redirect_to: o?.emailRedirectTo },
        body,
      })) as { message_id?: string } | null;
      // A phone OTP answers its message id (undefined when the provider gives none).
      return 'email' in credentials ? none : { ...none, messageId: res?.message_id };
    });
  }

  /**
   * Verifies a one-time code (or a token hash from an email link) and signs in.
   *
   * @example
   * await auth.verifyOtp({ email, token: '123456', type: 'email' });
   */
  verifyOtp(params: VerifyOtpParams): Promise<AuthResult<UserAndSession>> {
    return attempt(none, async () => {
      const { options, ...rest } = params;
      const body = await authFetch(this.http, {
        method: 'POST',
        path: '/verify',
        query: { redirect_to: options?.redirectTo },
        body: { ...rest, gotrue_meta_security: captcha(options as { captchaToken?: string }) },
      });
      return this.signedIn(body, params.type === 'recovery' ? 'PASSWORD_RECOVERY' : 'SIGNED_IN');
    });
  }

  /**
   * Signs in as a new anonymous user.
   *
   * @example
   * const { data: { user } } = await auth.signInAnonymously();
   */
  signInAnonymously(
    credentials: AnonymousOptions & { options?: AnonymousOptions } = {},
  ): Promise<AuthResult<UserAndSession>> {
    // `{ options: { data } }` as in the official client, or `{ data }`.
    const options = credentials.options ?? credentials;
    return attempt(none, async () => {
      const body = await authFetch(this.http, {
        method: 'POST',
        path: '/signup',
        body: { data: options.data ?? {}, gotrue_meta_security: captcha(options) },
      });
      return this.signedIn(body);
    });
  }

  /**
   * Sends a confirmation / OTP message again.
   *
   * @example
   * await auth.resend({ type: 'signup', email });
   */
  resend(
    params: (
      | { type: 'signup' | 'email_change'; email: string }
      | { type: 'sms' | 'phone_change'; phone: string }
    ) & {
      options?: { emailRedirectTo?: string; captchaToken?: string };
    },
  ): Promise<AuthResult<UserAndSession & { messageId?: string }>> {
    return attempt<UserAndSession & { messageId?: string }>(none, async () => {
      const { options, ...rest } = params;
      const res = (await authFetch(this.http, {
        method: 'POST',
        path: '/resend',
        query: { redirect_to: options?.emailRedirectTo },
        body: {
          ...rest,
          gotrue_meta_security: captcha(options),
          ...('email' in rest ? await this.pkce() : {}),
        },
      })) as { message_id?: string } | null;
      // A phone OTP answers its message id (undefined when the provider gives none).
      return 'email' in rest ? none : { ...none, messageId: res?.message_id };
    });
  }

  /**
   * Sends a password-reset email; the link signs in with PASSWORD_RECOVERY.
   *
   * @example
   * await auth.resetPasswordForEmail(email, { redirectTo: 'https://app.example.com/reset' });
   */
  resetPasswordForEmail(
    email: string,
    options: { redirectTo?: string; captchaToken?: string } = {},
  ): Promise<AuthResult<Record<string, never>>> {
    return attempt({}, async () => {
      await authFetch(this.http, {
        method: 'POST',
        path: '/recover',
        query: { redirect_to: options.redirectTo },
        body: { email, ...(await this.pkce(true)), gotrue_meta_security: captcha(options) },
      });
      return {};
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
      const recovery = redirectType === RECOVERY.slice(1);
      const r = await this.signedIn(body, recovery ? 'PASSWORD_RECOVERY' : 'SIGNED_IN');
      return { ...r, redirectType };
    });
  }

  /**
   * Signs in with an OAuth / OpenID Connect provider: navigates to its sign-in (browsers) and
   * returns the URL. The provider comes back to `redirectTo` with the session (implicit flow,
   * read by `detectSessionInUrl`) or a `?code=` for {@link exchangeCodeForSession} (PKCE).
   *
   * @example
   * await auth.signInWithOAuth({ provider: 'github', options: { redirectTo: location.origin } });
   */
  signInWithOAuth(
    credentials: SignInWithOAuthCredentials,
  ): Promise<AuthResult<{ provider: string; url: string }>> {
    return attempt({ provider: null, url: null }, () => this.toProvider(credentials));
  }

  /**
   * The provider's sign-in URL, navigated to in browsers: from `/authorize`, or, to link the
   * identity to the user of `token`, from `/user/identities/authorize`.
   */
  private async toProvider(c: SignInWithOAuthCredentials, token?: string) {
    const query = oauthQuery(c, await this.pkce(), !!token);
    const url = token
      ? (
          (await authFetch(this.http, { path: '/user/identities/authorize', query, token })) as {
            url: string;
          }
        ).url
      : `${this.http.url}/auth/v1/authorize?${toQuery(query)}`;
    goTo(url, c.options?.skipBrowserRedirect);
    return { provider: c.provider, url };
  }

  /** `POST /token?grant_type=<type>` (as the user when `token` is given). */
  private grant(type: string, body: object, token?: string) {
    return authFetch(this.http, {
      method: 'POST',
      path: '/token',
      query: { grant_type: type },
      token,
      body,
    });
  }

  /** `grant_type=id_token`, as the user (`link_identity`) when `token` is given. */
  private idToken(c: SignInWithIdTokenCredentials, token?: string) {
    return this.grant(
      'id_token',
      {
        provider: c.provider,
        id_token: c.token,
        access_token: c.access_token,
        nonce: c.nonce,
        link_identity: token ? true : undefined,
        gotrue_meta_security: captcha(c.options),
      },
      token,
    );
  }

  /**
   * Signs in with an ID token the app got from the provider itself (Google Sign-In, Sign in
   * with Apple, an OpenID Connect provider `custom:<id>`). `nonce` is the raw nonce; the token
   * carries its SHA-256 (hex).
   *
   * @example
   * await auth.signInWithIdToken({ provider: 'google', token: credential, nonce });
   */
  signInWithIdToken(
    credentials: SignInWithIdTokenCredentials,
  ): Promise<AuthResult<UserAndSession>> {
    return attempt(none, async () => this.signedIn(await this.idToken(credentials)));
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
   * Signs in through the SSO (SAML 2.0) provider of an id or email domain: navigates to it
   * (browsers) and returns its URL.
   *
   * @example
   * await auth.signInWithSSO({ domain: 'company.com' });
   */
  signInWithSSO(params: SignInWithSSO): Promise<MfaResult<{ url: string }>> {
    return run(async () => {
      const o = params.options;
      const body = (await authFetch(this.http, {
        method: 'POST',
        path: '/sso',
        body: {
          ...('providerId' in params
            ? { provider_id: params.providerId }
            : { domain: params.domain }),
          redirect_to: o?.redirectTo,
          ...(o?.captchaToken ? { gotrue_meta_security: captcha(o) } : {}),
          skip_http_redirect: true,
          ...(await this.pkce()),
        },
      }).catch(async (e) => {
        await this.storage.removeItem(`${this.storageKey}-code-verifier`);
        throw e;
      })) as { url: string };
      goTo(body.url, o?.skipBrowserRedirect);
      return body;
    });
  }

  /**
   * Signs in with a signed Sign-In-With-Ethereum / Solana message.
   *
   * @example
   * await auth.signInWithWeb3({ chain: 'ethereum', message, signature });
   */
  signInWithWeb3(credentials: SignInWithWeb3Credentials): Promise<AuthResult<UserAndSession>> {
    return attempt(none, async () => {
      const { chain, message, signature, options } = credentials;
      const body = await this.grant('web3', {
        chain,
        message,
        signature: web3Signature(chain, signature),
        ...(options?.captchaToken ? { gotrue_meta_security: captcha(options) } : {}),
      });
      return this.signedIn(body);
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
      recovery = redirectType === RECOVERY.slice(1);
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
