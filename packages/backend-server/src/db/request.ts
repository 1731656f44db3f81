import type { Database, Transaction, TransactionOptions } from './types';

/** Who is asking, as the hosted services set it for each request. */
export interface RequestContext {
  /** Database role: the JWT's `role` claim (anon, authenticated, service_role, …). */
  role: string;
  /** The verified JWT claims (`{}` for none). */
  claims: Record<string, unknown>;
  method: string;
  /** Path as the service sees it (gateway prefix stripped), e.g. `/todos`. */
  path: string;
  /** Request headers with lower-cased names. */
  headers: Record<string, string>;
}

const SET_CONTEXT = `select
  set_config('role', $1, true),
  set_config('request.jwt.claims', $2, true),
  set_config('request.method', $3, true),
  set_config('request.path', $4, true),
  set_config('request.headers', $5, true)`;

/**
 * Runs `fn` in one transaction as the request's role with its claims, like the hosted
 * services: `SET LOCAL ROLE` plus the `request.*` settings, so RLS decides access.
 */
export function asRequest<T>(
  db: Database,
  ctx: RequestContext,
  fn: (tx: Transaction) => Promise<T>,
  options: TransactionOptions = {},
): Promise<T> {
  return db.transaction(async (tx) => {
    await tx.query(SET_CONTEXT, [
      ctx.role,
      JSON.stringify(ctx.claims),
      ctx.method,
      ctx.path,
      JSON.stringify(ctx.headers),
    ]);
    return fn(tx);
  }, options);
}
