import {
  type Database,
  pgError,
  type QueryResult,
  type Statement,
  type Transaction,
  type TransactionOptions,
} from './types';

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
  /** The transaction's search_path (e.g. `"public", "public", "extensions"`); unchanged when absent. */
  searchPath?: string;
}

/**
 * The role the hosted REST, storage and realtime services log in as. It may only become
 * the roles granted to it (`anon`, `authenticated`, `service_role`, and whatever a project
 * grants it), so a validly signed JWT naming any other role (`postgres`, …) gets Postgres'
 * own refusal: `42501 permission denied to set role "postgres"`.
 */
export const API_ROLE = 'authenticator';

/**
 * Who may become the request's role: the API role when the server is connected as a
 * superuser (its own roles do not limit it), else the connecting user itself.
 */
const SWITCHER = `case when current_setting('is_superuser') = 'on' then '${API_ROLE}' else session_user end`;

/**
 * SQL that switches the transaction to the request's role (`param`, e.g. `$1`) the way the
 * hosted API does: `SET LOCAL SESSION AUTHORIZATION` to the API role first, so that Postgres
 * checks the switch against the API role's memberships (both revert at the transaction's
 * end). Two `set_config` items of one select list, evaluated in order.
 */
export const switchRoleSql = (param: string) =>
  `set_config('session_authorization', ${SWITCHER}, true),
  set_config('role', ${param}, true)`;

/**
 * The same rule as a boolean SQL expression (no error): whether the role named by `expr`
 * exists and the API role may become it. For code that switches roles by itself.
 */
export const mayBecomeSql = (expr: string) =>
  `coalesce((select pg_has_role(${SWITCHER}, r.oid, 'MEMBER') from pg_roles r where r.rolname = ${expr}), false)`;

/**
 * Whether `error` is Postgres refusing the switch to a request's role: a role the API role
 * may not become (42501) or one that does not exist (22023).
 */
export function isRoleRefusal(error: unknown): boolean {
  const pg = pgError(error);
  if (!pg) return false;
  if (pg.code === '42501') return pg.message.startsWith('permission denied to set role');
  return pg.code === '22023' && /^role ".*" does not exist$/.test(pg.message);
}

const SET_CONTEXT = `select
  ${switchRoleSql('$1')},
  set_config('request.jwt.claims', $2, true),
  set_config('request.method', $3, true),
  set_config('request.path', $4, true),
  set_config('request.headers', $5, true)`;

// With the request's search_path (REST: its schema, then the extra ones).
const WITH_SEARCH_PATH = `,
  set_config('search_path', $6, true)`;

// Read-only in the same statement: switching a transaction to read-only is allowed at any
// point, so this saves the separate `SET TRANSACTION READ ONLY` round trip.
const READ_ONLY = `,
  set_config('transaction_read_only', 'on', true)`;

const CONTEXT_TEXTS = [
  SET_CONTEXT,
  SET_CONTEXT + READ_ONLY,
  SET_CONTEXT + WITH_SEARCH_PATH,
  SET_CONTEXT + WITH_SEARCH_PATH + READ_ONLY,
];

/** The one statement that sets a request's role and settings. */
function contextStatement(ctx: RequestContext, readOnly = false): Statement {
  const params = [
    ctx.role,
    JSON.stringify(ctx.claims),
    ctx.method,
    ctx.path,
    JSON.stringify(ctx.headers),
  ];
  if (ctx.searchPath !== undefined) params.push(ctx.searchPath);
  const text = CONTEXT_TEXTS[(ctx.searchPath !== undefined ? 2 : 0) + (readOnly ? 1 : 0)];
  return { text: text as string, params };
}

/**
 * Runs `fn` in one transaction as the request's role with its claims, like the hosted
 * services: `SET LOCAL ROLE` plus the `request.*` settings, so RLS decides access.
 *
 * The settings statement is not awaited before `fn` starts: its statements queue behind it
 * on the same connection (pipelined on PostgreSQL), so a request costs one round trip less.
 * When the settings fail (e.g. a role that does not exist), that error is the one thrown,
 * not the "transaction is aborted" of the statements behind it.
 */
export function asRequest<T>(
  db: Database,
  ctx: RequestContext,
  fn: (tx: Transaction) => Promise<T>,
  options: TransactionOptions & {
    /** Statements run as the connecting user first (settings only it may change). */
    before?: readonly Statement[];
  } = {},
): Promise<T> {
  const { readOnly, before = [], ...rest } = options;
  return db.transaction(async (tx) => {
    for (const st of before) await tx.query(st.text, st.params);
    // Resolves to the settings' error, or null; never rejects.
    const context = contextStatement(ctx, readOnly);
    const settings = tx.query(context.text, context.params).then(
      () => null,
      (error: unknown) => ({ error }),
    );
    const outcome = await fn(tx).then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
    const failed = await settings;
    if (failed) throw failed.error;
    if ('error' in outcome) throw outcome.error;
    return outcome.value;
  }, rest);
}

/**
 * Read-only statements as the request's role, in one round trip: the context settings,
 * `statements` and COMMIT (ROLLBACK when `rollback`) leave together (`db.readBatch`), so
 * nothing may decide between them. Throws the settings' error when they fail, else the
 * first statement error; resolves to the statements' results.
 */
export async function readAsRequest(
  db: Database,
  ctx: RequestContext,
  statements: readonly Statement[],
  options: { rollback?: boolean } = {},
): Promise<QueryResult[]> {
  const settled = await db.readBatch([contextStatement(ctx), ...statements], options);
  const results: QueryResult[] = [];
  for (const r of settled) {
    if (!r.ok) throw r.error;
    results.push(r.value);
  }
  return results.slice(1);
}
