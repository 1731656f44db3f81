/**
 * The project's JSON Web Key Set (`/auth/v1/.well-known/jwks.json`), cached per project for
 * {@link JWKS_TTL}: a key is looked up in the cache first and the set is fetched again when
 * the key is missing (a rotation) or the cache is stale.
 */
import type { Http } from '../http/index';
import { authFetch } from './api';

/** A public JSON Web Key as the JWKS publishes it. */
export interface Jwk {
  kty: string;
  kid?: string;
  alg?: string;
  use?: string;
  key_ops?: string[];
  [member: string]: unknown;
}

/** How long a fetched key set is trusted, in ms (the hosted clients' 10 minutes). */
export const JWKS_TTL = 10 * 60 * 1000;

interface Cached {
  keys: Jwk[];
  at: number;
}

/** One cache per project URL, shared by the clients of that project in this context. */
const cache = new Map<string, Cached>();

/**
 * The key with `kid`: from `supplied` when given, else from the cached set while it is fresh,
 * else from a fresh fetch of the set. Null when the project publishes no such key.
 *
 * @example
 * const jwk = await findJwk(http, header.kid, Date.now());
 */
export async function findJwk(
  http: Http,
  kid: string,
  now: number,
  supplied?: { keys: Jwk[] },
): Promise<Jwk | null> {
  const given = supplied?.keys.find((k) => k.kid === kid);
  if (given) return given;
  const cached = cache.get(http.url);
  const hit = cached?.keys.find((k) => k.kid === kid);
  if (hit && cached && cached.at + JWKS_TTL > now) return hit;
  const body = (await authFetch(http, { path: '/.well-known/jwks.json' })) as {
    keys?: Jwk[];
  } | null;
  const keys = Array.isArray(body?.keys) ? body.keys : [];
  if (keys.length === 0) return null;
  cache.set(http.url, { keys, at: now });
  return keys.find((k) => k.kid === kid) ?? null;
}
