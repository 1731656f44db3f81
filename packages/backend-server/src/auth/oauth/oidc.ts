/**
 * OpenID Connect: discovery (`<issuer>/.well-known/openid-configuration`, cached an hour as
 * GoTrue's OIDC cache), the issuer's keys (JWKS, fetched and refreshed by jose) and the
 * verification of ID tokens (signature, `iss`, `exp`, then the callers' audience and nonce).
 */
import { createHash } from 'node:crypto';
import { createRemoteJWKSet, decodeProtectedHeader, type JWTPayload, jwtVerify } from 'jose';
import { getJson, ProviderHttpError } from './http';

/** The parts of a discovery document this server uses. */
export interface OidcMetadata {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  userinfo_endpoint?: string;
  jwks_uri: string;
  id_token_signing_alg_values_supported?: string[];
}

interface Entry {
  metadata: OidcMetadata;
  keys: ReturnType<typeof createRemoteJWKSet>;
  fetchedAt: number;
}

const TTL_MS = 60 * 60 * 1000;
const ASYMMETRIC = /^(RS|PS|ES)(256|384|512)$|^EdDSA$|^Ed25519$/;

/** An OpenID provider known by its issuer: its endpoints and keys. */
export interface OidcIssuer {
  metadata: OidcMetadata;
  keys: ReturnType<typeof createRemoteJWKSet>;
}

/** Discovery documents and key sets by issuer (one per server). */
export class OidcCache {
  private readonly entries = new Map<string, Entry>();
  private readonly pending = new Map<string, Promise<Entry>>();

  /**
   * The provider of `issuer`: its discovery document (from `discoveryUrl` or the well-known
   * path), whose `issuer` must be exactly `issuer`.
   */
  async get(issuer: string, discoveryUrl?: string | null): Promise<OidcIssuer> {
    const url = discoveryUrl || `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
    const key = `${issuer} ${url}`;
    const hit = this.entries.get(key);
    if (hit && Date.now() - hit.fetchedAt < TTL_MS) return hit;
    let load = this.pending.get(key);
    if (!load) {
      load = this.load(issuer, url).finally(() => this.pending.delete(key));
      this.pending.set(key, load);
    }
    const entry = await load;
    this.entries.set(key, entry);
    return entry;
  }

  private async load(issuer: string, url: string): Promise<Entry> {
    const metadata = await getJson<OidcMetadata>(url, null);
    if (metadata?.issuer !== issuer) {
      throw new ProviderHttpError(
        `oidc: issuer did not match the issuer returned by provider, expected "${issuer}" got "${String(metadata?.issuer)}"`,
      );
    }
    for (const field of ['authorization_endpoint', 'token_endpoint', 'jwks_uri'] as const) {
      if (typeof metadata[field] !== 'string') {
        throw new ProviderHttpError(`oidc: discovery document of ${issuer} has no ${field}`);
      }
    }
    const keys = createRemoteJWKSet(new URL(metadata.jwks_uri), { timeoutDuration: 10_000 });
    return { metadata, keys, fetchedAt: Date.now() };
  }
}

/** A verified ID token: its claims, audience as a list, nonce and `at_hash`. */
export interface VerifiedIdToken {
  claims: JWTPayload & Record<string, unknown>;
  audience: string[];
  nonce: string;
}

/**
 * Verifies an ID token of `provider`: signature with the issuer's keys (the algorithms its
 * discovery lists, asymmetric only; RS256 when it lists none), `iss`, and `exp` (required).
 * With an `accessToken`, a present `at_hash` must match it. Audience and nonce are the
 * caller's to check (they differ between the redirect and the ID-token flows).
 */
export async function verifyIdToken(
  provider: OidcIssuer,
  token: string,
  options: { accessToken?: string | undefined } = {},
): Promise<VerifiedIdToken> {
  const listed = provider.metadata.id_token_signing_alg_values_supported ?? [];
  const algorithms = listed.filter((a) => ASYMMETRIC.test(a));
  const { payload } = await jwtVerify(token, provider.keys, {
    issuer: provider.metadata.issuer,
    algorithms: algorithms.length ? algorithms : ['RS256'],
    requiredClaims: ['exp'],
  });
  const claims = payload as VerifiedIdToken['claims'];
  if (options.accessToken && typeof claims.at_hash === 'string') {
    const alg = String(decodeProtectedHeader(token).alg ?? 'RS256');
    if (claims.at_hash !== accessTokenHash(options.accessToken, alg)) {
      throw new Error('access token hash does not match value in ID token');
    }
  }
  const aud = claims.aud;
  return {
    claims,
    audience: Array.isArray(aud) ? aud.map(String) : aud ? [String(aud)] : [],
    nonce: typeof claims.nonce === 'string' ? claims.nonce : '',
  };
}

/** `at_hash`: the left half of the access token's hash (the algorithm's size), base64url. */
export function accessTokenHash(accessToken: string, alg: string): string {
  const bits = alg.endsWith('512') ? 'sha512' : alg.endsWith('384') ? 'sha384' : 'sha256';
  const digest = createHash(bits).update(accessToken).digest();
  return digest.subarray(0, digest.length / 2).toString('base64url');
}

/** The issuer a token claims, read without verification (to choose how to verify it). */
export function unverifiedIssuer(token: string): string | null {
  try {
    const part = token.split('.')[1] ?? '';
    const iss = (JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as { iss?: unknown })
      .iss;
    return typeof iss === 'string' ? iss : null;
  } catch {
    return null;
  }
}
