/**
 * The console's signing key API (`/_console/api/signing-keys`), the hosted "JWT signing
 * keys" page: list the keys (public parts only), create a standby key (made here; its
 * private part never leaves the server), rotate (standby → current, current → previous),
 * change a key's status (revoke, back to standby or previous) and delete a revoked or
 * standby key. Changes go through the key table, so every replica sees them.
 */
import { type Context, Hono } from 'hono';
import { generateSigningKey } from '../config/keys';
import { SigningKeyError, type SigningKeyInfo, type SigningKeys } from '../http/signing-keys';
import type { AppEnv } from '../service-module';
import { badRequest, jsonBody } from './http';

const ALGORITHMS = ['ES256', 'RS256'] as const;
const STATUSES = ['standby', 'previous', 'revoked'] as const;

/** `kid` of a body: a string, or null for the legacy secret; undefined when absent/wrong. */
function kidOf(value: unknown): string | null | undefined {
  return typeof value === 'string' || value === null ? value : undefined;
}

/** Runs a change; a refused one (no standby key, revoking the current key, …) is a 400. */
async function refusedAs400(
  c: Context<AppEnv>,
  work: () => Promise<unknown>,
  status: 200 | 201 = 200,
): Promise<Response> {
  try {
    const result = await work();
    return result === undefined ? c.body(null, 204) : c.json(result, status);
  } catch (error) {
    if (error instanceof SigningKeyError) return badRequest(c, error.message);
    throw error;
  }
}

export function signingKeyRoutes(keys: SigningKeys): Hono<AppEnv> {
  const api = new Hono<AppEnv>();

  api.get('/', (c) => c.json(keys.list() satisfies SigningKeyInfo[]));

  api.post('/', async (c) => {
    const body = (await jsonBody(c)) ?? {};
    const algorithm = body.algorithm ?? 'ES256';
    if (!ALGORITHMS.includes(algorithm as never))
      return badRequest(c, 'Send {"algorithm": "ES256"} or {"algorithm": "RS256"}.');
    const jwk = generateSigningKey(algorithm as 'ES256' | 'RS256');
    return refusedAs400(c, () => keys.add(jwk, 'standby'), 201);
  });

  api.post('/rotate', async (c) => {
    const body = (await jsonBody(c)) ?? {};
    const kid = body.kid === undefined ? undefined : kidOf(body.kid);
    if (body.kid !== undefined && kid === undefined)
      return badRequest(c, 'Send {} or {"kid": "<standby kid>"} (null: the legacy secret).');
    return refusedAs400(c, () => keys.rotate(kid));
  });

  api.post('/status', async (c) => {
    const body = await jsonBody(c);
    const kid = kidOf(body?.kid);
    const status = body?.status;
    if (kid === undefined || !STATUSES.includes(status as never))
      return badRequest(c, 'Send {"kid": "…", "status": "revoked" | "standby" | "previous"}.');
    return refusedAs400(c, () => keys.setStatus(kid, status as (typeof STATUSES)[number]));
  });

  api.delete('/:kid', (c) => refusedAs400(c, () => keys.remove(c.req.param('kid'))));

  return api;
}
