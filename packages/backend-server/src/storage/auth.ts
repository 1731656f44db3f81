import type { RequestContext } from '../db/index';
import type { GatewayInfo } from '../http/gateway';
import { verifyAccessToken } from '../http/jwt';
import type { SigningKeys } from '../http/signing-keys';
import { ERR } from './errors';

/** Who a storage request runs as: the database request context and the owner it writes. */
export interface Caller {
  ctx: RequestContext;
  /** The JWT `sub`: stored as `owner_id` (and `owner` when it is a uuid). */
  owner: string | null;
  role: string;
}

function headerRecord(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    out[name.toLowerCase()] = value;
  });
  return out;
}

function context(
  req: Request,
  path: string,
  role: string,
  claims: Record<string, unknown>,
): RequestContext {
  return { role, claims, method: req.method, path, headers: headerRecord(req.headers) };
}

/**
 * Verifies the request's bearer token (the user's JWT, or the project key's JWT the gateway
 * derived) the way storage does it itself: a missing or bad token is AccessDenied, in the
 * words of the JWT library (jose, as the hosted service), e.g. `Invalid Compact JWS` when
 * no token was sent.
 */
export async function authenticate(
  req: Request,
  path: string,
  gateway: GatewayInfo,
  keys: SigningKeys,
): Promise<Caller> {
  const result = await verifyAccessToken(gateway.token ?? '', keys);
  if (!result.ok) throw ERR.accessDenied(result.detail);
  return callerOfClaims(req, path, result.claims);
}

/** The caller a verified token's claims stand for (its `role`, else anon; its `sub`). */
export function callerOfClaims(
  req: Request,
  path: string,
  claims: Record<string, unknown>,
): Caller {
  const role = typeof claims.role === 'string' ? claims.role : 'anon';
  const sub = typeof claims.sub === 'string' ? claims.sub : null;
  return { ctx: context(req, path, role, claims), owner: sub, role };
}

/**
 * A caller for requests authorised by a signed token rather than RLS (signed uploads): the
 * service role, writing as `owner`.
 */
export function serviceCaller(req: Request, path: string, owner: string | null): Caller {
  const claims: Record<string, unknown> = {
    role: 'service_role',
    ...(owner ? { sub: owner } : {}),
  };
  return { ctx: context(req, path, 'service_role', claims), owner, role: 'service_role' };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The `owner` uuid column value for a `sub` (null when the sub is not a uuid). */
export const ownerUuid = (owner: string | null): string | null =>
  owner && UUID.test(owner) ? owner : null;
