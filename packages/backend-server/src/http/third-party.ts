/**
 * Third-party auth (the hosted `[auth.third_party.*]` integrations): tokens of Firebase Auth,
 * Auth0, AWS Cognito, Clerk and WorkOS are trusted by their `iss`. Each configured issuer's
 * keys come from its OpenID discovery document (`<issuer>/.well-known/openid-configuration`,
 * then its `jwks_uri`), are kept for a TTL, fetched again once for a `kid` they do not have
 * (at most once per cooldown, so random `kid`s cannot make the server fetch without end),
 * and concurrent fetches share one request. The signature and claim checks are the ones of
 * the project's own tokens (jwt.ts).
 */
import { importSigningKey, type KeyEntry, type SigningKeyJwk } from './signing-keys';

/** The hosted integrations, as `[auth.third_party.*]` names their settings. */
export interface ThirdPartyAuthOptions {
  /** `[auth.third_party.firebase]`: issuer `https://securetoken.google.com/<projectId>`. */
  firebase?: { projectId: string };
  /** `[auth.third_party.auth0]`: issuer `https://<tenant>[.<tenantRegion>].auth0.com`. */
  auth0?: { tenant: string; tenantRegion?: string };
  /** `[auth.third_party.aws_cognito]`: issuer `https://cognito-idp.<region>.amazonaws.com/<id>`. */
  awsCognito?: { userPoolId: string; userPoolRegion: string };
  /** `[auth.third_party.clerk]`: issuer `https://<domain>`. */
  clerk?: { domain: string };
  /** `[auth.third_party.workos]`: the issuer URL itself. */
  workos?: { issuerUrl: string };
  /** How long fetched keys are trusted before they are fetched again, in seconds. Default 600. */
  jwksTtlSeconds?: number;
  /**
   * The fetch that reaches the issuers (default the global fetch): tests route the issuers'
   * fixed URLs to a local OpenID provider with it.
   */
  fetch?: typeof fetch;
}

/** A fetch of an issuer's keys failed: its tokens get 401, never 500. */
export class IssuerUnreachable extends Error {}

const FETCH_TIMEOUT_MS = 5_000;
/** The least time between two fetches caused by an unknown `kid`. */
const UNKNOWN_KID_COOLDOWN_MS = 30_000;
const CLERK_DOMAIN = /^(clerk([.][a-z0-9-]+){2,}|([a-z0-9-]+[.])+clerk[.]accounts[.]dev)$/;

const trim = (url: string) => url.replace(/\/+$/, '');

/** The issuers of the enabled integrations (checked; throws naming the bad setting). */
export function thirdPartyIssuers(o: ThirdPartyAuthOptions): string[] {
  const need = (value: unknown, where: string): string => {
    if (typeof value !== 'string' || value.trim() === '')
      throw new Error(`auth.thirdParty.${where} is required`);
    return value.trim();
  };
  const out: string[] = [];
  if (o.firebase)
    out.push(`https://securetoken.google.com/${need(o.firebase.projectId, 'firebase.projectId')}`);
  if (o.auth0) {
    const tenant = need(o.auth0.tenant, 'auth0.tenant');
    const region = o.auth0.tenantRegion?.trim();
    out.push(`https://${tenant}${region ? `.${region}` : ''}.auth0.com`);
  }
  if (o.awsCognito) {
    const id = need(o.awsCognito.userPoolId, 'awsCognito.userPoolId');
    const region = need(o.awsCognito.userPoolRegion, 'awsCognito.userPoolRegion');
    out.push(`https://cognito-idp.${region}.amazonaws.com/${id}`);
  }
  if (o.clerk) {
    const domain = need(o.clerk.domain, 'clerk.domain');
    if (!CLERK_DOMAIN.test(domain))
      throw new Error(
        'auth.thirdParty.clerk.domain must be the Clerk instance domain, like clerk.example.com or example.clerk.accounts.dev',
      );
    out.push(`https://${domain}`);
  }
  if (o.workos) {
    const url = need(o.workos.issuerUrl, 'workos.issuerUrl');
    if (!/^https?:\/\/[^/]/.test(url))
      throw new Error('auth.thirdParty.workos.issuerUrl must be a URL');
    out.push(url);
  }
  return out.map(trim);
}

/** One issuer's keys: loaded on first use, kept for the TTL, refetched for an unknown kid. */
export class Issuer {
  #keys = new Map<string, KeyEntry>();
  #fetchedAt = Number.NEGATIVE_INFINITY;
  #unknownKidAt = Number.NEGATIVE_INFINITY;
  #pending: Promise<void> | null = null;

  constructor(
    readonly issuer: string,
    private readonly owner: ThirdPartyAuth,
  ) {}

  /** The key named `kid`, or undefined when the issuer does not publish it. */
  async key(kid: string): Promise<KeyEntry | undefined> {
    const now = Date.now();
    if (now - this.#fetchedAt >= this.owner.ttlMs) {
      // Stale keys stay in use while the issuer cannot be reached.
      await this.#refresh().catch((error) => {
        if (this.#keys.size === 0) throw error;
      });
    }
    const hit = this.#keys.get(kid);
    if (hit || now - this.#unknownKidAt < UNKNOWN_KID_COOLDOWN_MS) return hit;
    this.#unknownKidAt = now;
    await this.#refresh();
    return this.#keys.get(kid);
  }

  #refresh(): Promise<void> {
    this.#pending ??= this.#load().finally(() => {
      this.#pending = null;
    });
    return this.#pending;
  }

  async #load(): Promise<void> {
    const discovery = await this.owner.getJson(`${this.issuer}/.well-known/openid-configuration`);
    const jwksUri = discovery.jwks_uri;
    if (typeof jwksUri !== 'string')
      throw new IssuerUnreachable(`the discovery document of ${this.issuer} has no jwks_uri`);
    const { keys } = await this.owner.getJson(jwksUri);
    if (!Array.isArray(keys)) throw new IssuerUnreachable(`${jwksUri} is not a JWKS`);
    const next = new Map<string, KeyEntry>();
    for (const jwk of keys as SigningKeyJwk[]) {
      // Only public signing keys of the algorithms the verifier knows (ES256, RS256).
      if (!jwk || typeof jwk !== 'object' || jwk.kty === 'oct' || typeof jwk.kid !== 'string')
        continue;
      if (jwk.use !== undefined && jwk.use !== 'sig') continue;
      try {
        const { d: _private, ...pub } = jwk;
        next.set(jwk.kid, importSigningKey({ ...pub, status: 'previous' }, this.issuer));
      } catch {
        // A key of another algorithm: tokens naming it are refused as unknown.
      }
    }
    this.#keys = next;
    this.#fetchedAt = Date.now();
  }
}

/** The configured third-party issuers of a project, by issuer URL. */
export class ThirdPartyAuth {
  readonly ttlMs: number;
  readonly #issuers = new Map<string, Issuer>();
  readonly #fetch: typeof fetch;
  readonly #stop = new AbortController();

  constructor(options: ThirdPartyAuthOptions) {
    for (const url of thirdPartyIssuers(options)) this.#issuers.set(url, new Issuer(url, this));
    this.ttlMs = (options.jwksTtlSeconds ?? 600) * 1000;
    this.#fetch = options.fetch ?? fetch;
  }

  get size(): number {
    return this.#issuers.size;
  }

  /** The configured issuer a token's `iss` names (a trailing slash does not matter). */
  issuer(iss: unknown): Issuer | undefined {
    return typeof iss === 'string' ? this.#issuers.get(trim(iss)) : undefined;
  }

  /** A JSON object from an issuer, within the time limit; IssuerUnreachable otherwise. */
  async getJson(url: string): Promise<Record<string, unknown>> {
    try {
      const res = await this.#fetch(url, {
        headers: { accept: 'application/json' },
        redirect: 'follow',
        signal: AbortSignal.any([this.#stop.signal, AbortSignal.timeout(FETCH_TIMEOUT_MS)]),
      });
      if (!res.ok) throw new Error(`status ${res.status}`);
      const value = (await res.json()) as unknown;
      if (!value || typeof value !== 'object' || Array.isArray(value))
        throw new Error('not a JSON object');
      return value as Record<string, unknown>;
    } catch (error) {
      throw new IssuerUnreachable(`${url}: ${(error as Error).message}`);
    }
  }

  /** Ends fetches under way (server stop). */
  close(): void {
    this.#stop.abort();
  }
}
