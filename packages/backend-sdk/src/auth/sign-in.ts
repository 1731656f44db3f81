/**
 * The sign-in flows of the auth client (GoTrue protocol under `/auth/v1`): sign-up, password,
 * one-time codes and magic links, anonymous users, OAuth / OpenID Connect, ID tokens, SSO and
 * Web3, with PKCE. {@link AuthClient} adds the user and session methods on top.
 */
import { asSession, attempt, authFetch, toQuery } from './api';
import { type MfaResult, run } from './mfa';
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
  AuthResult,
  OtpCredentials,
  PasswordCredentials,
  SignUpCredentials,
  User,
  UserAndSession,
  VerifyOtpParams,
} from './types';

/**
 * The suffix of a stored PKCE verifier whose flow is a password recovery: the code exchange
 * answers its redirect type, `PASSWORD_RECOVERY`.
 */
const RECOVERY = '/PASSWORD_RECOVERY';
/** The data of a failed sign-in. */
export const none = { user: null, session: null };
/** The `gotrue_meta_security` of a request. */
export const captcha = (o?: { captchaToken?: string }) => ({ captcha_token: o?.captchaToken });

/** Options of an anonymous sign-in. */
interface AnonymousOptions {
  /** User metadata of the new anonymous user. */
  data?: Record<string, unknown>;
  captchaToken?: string;
}

/** The sign-in methods of {@link AuthClient} (session state from {@link SessionManager}). */
export class SignInClient extends SessionManager {
  /** `code_challenge` + method for PKCE flows (nulls in the implicit flow). */
  protected async pkce(recovery = false) {
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

  /** `POST /token?grant_type=<type>` (as the user when `token` is given). */
  protected grant(type: string, body: object, token?: string) {
    return authFetch(this.http, {
      method: 'POST',
      path: '/token',
      query: { grant_type: type },
      token,
      body,
    });
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
  protected async toProvider(c: SignInWithOAuthCredentials, token?: string) {
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

  /** `grant_type=id_token`, as the user (`link_identity`) when `token` is given. */
  protected idToken(c: SignInWithIdTokenCredentials, token?: string) {
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
}
