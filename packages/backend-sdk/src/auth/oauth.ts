/**
 * Sign-in with external providers (OAuth 2.0 / OpenID Connect), ID tokens, linked identities,
 * and the SSO and Web3 entry points, with the official client's names and shapes. The
 * methods live on {@link AuthClient}; this file holds their types and URL building.
 */
import { base64url } from './pkce';

/** Providers by the auth server's names; OpenID Connect providers are `custom:<id>`. */
export type Provider =
  | 'apple'
  | 'azure'
  | 'bitbucket'
  | 'discord'
  | 'facebook'
  | 'figma'
  | 'fly'
  | 'github'
  | 'gitlab'
  | 'google'
  | 'kakao'
  | 'keycloak'
  | 'linkedin'
  | 'linkedin_oidc'
  | 'notion'
  | 'slack'
  | 'slack_oidc'
  | 'snapchat'
  | 'spotify'
  | 'twitch'
  | 'twitter'
  | 'x'
  | 'workos'
  | 'zoom'
  | `custom:${string}`;

/** Options of an OAuth redirect (`signInWithOAuth`, `linkIdentity`). */
export interface OAuthOptions {
  /**
   * Where the provider's sign-in comes back to (must be allowed by the project).
   *
   * @example
   * { redirectTo: `${location.origin}/auth/callback` }
   */
  redirectTo?: string;
  /**
   * Extra scopes to ask the provider for (as the provider spells them).
   *
   * @example
   * { scopes: 'repo gist' }
   */
  scopes?: string;
  /**
   * Extra query parameters for the provider's authorize step.
   *
   * @example
   * { queryParams: { prompt: 'select_account' } }
   */
  queryParams?: Record<string, string>;
  /**
   * Return the URL instead of navigating to it (default false in browsers).
   *
   * @example
   * const { data } = await auth.signInWithOAuth({ provider: 'github', options: { skipBrowserRedirect: true } });
   * window.open(data.url);
   */
  skipBrowserRedirect?: boolean;
}

/** `signInWithOAuth` / `linkIdentity` with a provider's redirect. */
export interface SignInWithOAuthCredentials {
  provider: Provider;
  options?: OAuthOptions;
}

/** `signInWithIdToken` / `linkIdentity` with an ID token the app got from the provider. */
export interface SignInWithIdTokenCredentials {
  /** `google`, `apple`, `azure`, `facebook`, `kakao` or `custom:<id>`. */
  provider: Provider | (string & {});
  /** The provider's ID token (a JWT). */
  token: string;
  /** The access token issued with it, when the ID token has an `at_hash`. */
  access_token?: string;
  /** The raw nonce whose SHA-256 (hex) the token carries. */
  nonce?: string;
  options?: { captchaToken?: string };
}

/** `signInWithSSO`: an SSO provider by id or by the user's email domain. */
export type SignInWithSSO = ({ providerId: string } | { domain: string }) & {
  options?: { redirectTo?: string; captchaToken?: string; skipBrowserRedirect?: boolean };
};

/**
 * `signInWithWeb3` with a signed Sign-In-With-Ethereum / Solana message. (Wallet discovery and
 * message building are left to the app.)
 */
export interface SignInWithWeb3Credentials {
  chain: 'ethereum' | 'solana';
  message: string;
  /** Ethereum: hex (`0x…`); Solana: bytes (sent as base64url) or base64url. */
  signature: string | Uint8Array;
  options?: { captchaToken?: string };
}

const inBrowser = () => typeof window !== 'undefined' && typeof document !== 'undefined';

/** Navigates to `url` in browsers unless the caller asked for the URL only. */
export function goTo(url: string, skip?: boolean): void {
  if (!skip && inBrowser()) window.location.assign(url);
}

/** The query of an OAuth start, in the official client's order. */
export function oauthQuery(
  c: SignInWithOAuthCredentials,
  pkce: { code_challenge: string | null; code_challenge_method: string | null },
  skip?: boolean,
): Record<string, string | undefined> {
  const o = c.options;
  return {
    provider: c.provider,
    redirect_to: o?.redirectTo,
    scopes: o?.scopes,
    code_challenge: pkce.code_challenge ?? undefined,
    code_challenge_method: pkce.code_challenge_method ?? undefined,
    ...o?.queryParams,
    // Only the identity-linking request asks for JSON (`{url}`) instead of a redirect.
    skip_http_redirect: skip ? 'true' : undefined,
  };
}

/** A Web3 signature as the auth server takes it: Solana bytes as base64url, else as given. */
export const web3Signature = (chain: string, signature: string | Uint8Array) =>
  chain === 'solana' && typeof signature !== 'string' ? base64url(signature) : signature;
