/**
 * Settings of sign-in with external providers (OAuth 2.0 and OpenID Connect), identity linking
 * and the emulated provider, with their defaults. Part of the one config loader
 * (`resolveConfig` in `resolve.ts` calls {@link resolveExternal}).
 */

/** The named providers this server implements (GoTrue's names and endpoints). */
export const NAMED_PROVIDERS = ['github', 'google', 'gitlab', 'discord'] as const;
export type NamedProvider = (typeof NAMED_PROVIDERS)[number];

/** A named provider (`github`, `google`, …), as the hosted `[auth.external.<name>]`. */
export interface ExternalProviderOptions {
  /** Default true (an entry turns the provider on). */
  enabled?: boolean;
  /**
   * OAuth client id. A list is accepted for ID tokens (`signInWithIdToken` accepts a token
   * whose audience is any of them); the first is used for the redirect flow.
   *
   * @example
   * { clientId: '1234.apps.googleusercontent.com', secret: process.env.GOOGLE_SECRET }
   */
  clientId?: string | string[];
  /** OAuth client secret (not needed for ID tokens, nor when emulated). */
  secret?: string;
  /** The callback URL registered with the provider. Default `<server url>/auth/v1/callback`. */
  redirectUri?: string;
  /**
   * Base URL of a self-hosted instance: GitHub Enterprise (`https://github.example.com`,
   * API under `/api/v3`), GitLab. For Google: the issuer (default
   * `https://accounts.google.com`), to point it at a test double.
   *
   * @example
   * { url: 'https://github.example.com' }
   */
  url?: string;
  /** Accept ID tokens without a nonce check (`skip_nonce_check`). Default false. */
  skipNonceCheck?: boolean;
  /** Sign in even when the provider gives no email (`email_optional`). Default false. */
  emailOptional?: boolean;
}

/**
 * A generic OpenID Connect provider, named `custom:<id>` (as the hosted custom providers):
 * endpoints and keys come from the issuer's discovery document.
 *
 * @example
 * startServer({ auth: { external: { 'custom:acme': {
 *   issuer: 'https://id.acme.test', clientId: 'drive', secret: process.env.ACME_SECRET,
 * } } } });
 */
export interface OidcProviderOptions extends ExternalProviderOptions {
  /** The issuer (`iss` of its ID tokens); discovery is `<issuer>/.well-known/openid-configuration`. */
  issuer: string;
  /** Another discovery URL, when the provider serves it elsewhere. */
  discoveryUrl?: string;
  /** Scopes asked for by default (`openid` is always added). Default `['openid', 'email', 'profile']`. */
  scopes?: string[];
  /** Send a PKCE challenge to the provider (`pkce_enabled`). Default true. */
  pkce?: boolean;
  /** Name shown on the emulated sign-in page. Default the id after `custom:`. */
  displayName?: string;
}

/** The `external` option: named providers by name, OIDC providers as `custom:<id>`. */
export type ExternalOptions = Partial<Record<NamedProvider, ExternalProviderOptions>> & {
  [custom: `custom:${string}`]: OidcProviderOptions;
};

/** One configured provider, resolved. */
export interface ResolvedProvider {
  /** `github`, `google`, … or `custom:<id>`. */
  name: string;
  kind: NamedProvider | 'oidc';
  enabled: boolean;
  clientIds: string[];
  secret: string;
  /** Explicit redirect URI, or null for `<server url>/auth/v1/callback`. */
  redirectUri: string | null;
  url: string | null;
  skipNonceCheck: boolean;
  emailOptional: boolean;
  /** OIDC providers only. */
  issuer: string | null;
  discoveryUrl: string | null;
  scopes: string[];
  pkce: boolean;
  displayName: string;
}

export interface ResolvedExternal {
  providers: Map<string, ResolvedProvider>;
  /** `linkIdentity` / `unlinkIdentity` (GoTrue's `SECURITY_MANUAL_LINKING_ENABLED`). */
  manualLinking: boolean;
  /** Each provider's authorize step is a local page (see `AuthOptions.emulateProviders`). */
  emulate: boolean;
}

const DISPLAY: Record<NamedProvider, string> = {
  github: 'GitHub',
  google: 'Google',
  gitlab: 'GitLab',
  discord: 'Discord',
};

const list = (v: string | string[] | undefined) =>
  (Array.isArray(v) ? v : v ? [v] : []).filter((s) => s !== '');

function checkUrl(value: string | undefined, where: string): string | null {
  if (value === undefined || value === '') return null;
  try {
    const url = new URL(value);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error();
  } catch {
    throw new Error(`${where} must be an http(s) URL`);
  }
  return value.replace(/\/+$/, '');
}

/** Is `host` a loopback interface (where the emulated provider may be turned on)? */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h);
}

export function resolveExternal(
  external: ExternalOptions | undefined,
  options: { manualLinking?: boolean | undefined; emulate?: boolean | undefined; host: string },
): ResolvedExternal {
  const providers = new Map<string, ResolvedProvider>();
  for (const [name, raw] of Object.entries(external ?? {})) {
    if (!raw) continue;
    const where = `auth.external["${name}"]`;
    const custom = name.startsWith('custom:');
    if (custom && !/^custom:[a-z0-9][a-z0-9_-]*$/.test(name)) {
      throw new Error(`${where}: a custom provider is named custom:<id> (a-z, 0-9, _ and -)`);
    }
    if (!custom && !(NAMED_PROVIDERS as readonly string[]).includes(name)) {
      throw new Error(
        `${where}: unknown provider (named providers: ${NAMED_PROVIDERS.join(', ')}; OpenID Connect providers: custom:<id> with an issuer)`,
      );
    }
    const o = raw as OidcProviderOptions;
    const issuer = custom ? checkUrl(o.issuer, `${where}.issuer`) : null;
    if (custom && !issuer) throw new Error(`${where}.issuer is required`);
    const scopes = o.scopes ?? ['openid', 'email', 'profile'];
    providers.set(name, {
      name,
      kind: custom ? 'oidc' : (name as NamedProvider),
      enabled: o.enabled ?? true,
      clientIds: list(o.clientId),
      secret: o.secret ?? '',
      redirectUri: checkUrl(o.redirectUri, `${where}.redirectUri`),
      url: checkUrl(o.url, `${where}.url`),
      skipNonceCheck: o.skipNonceCheck ?? false,
      emailOptional: o.emailOptional ?? false,
      issuer,
      discoveryUrl: custom ? checkUrl(o.discoveryUrl, `${where}.discoveryUrl`) : null,
      scopes: scopes.includes('openid') ? scopes : ['openid', ...scopes],
      pkce: o.pkce ?? true,
      displayName: o.displayName || (custom ? name.slice(7) : DISPLAY[name as NamedProvider]),
    });
  }
  const emulate = options.emulate ?? false;
  if (emulate && !isLoopbackHost(options.host)) {
    throw new Error(
      `auth.emulateProviders is for local work only: the server must listen on a loopback address (it listens on ${options.host})`,
    );
  }
  return { providers, manualLinking: options.manualLinking ?? false, emulate };
}
