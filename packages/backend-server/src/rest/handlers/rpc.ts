import {
  buildContext,
  contentRange,
  type RestRequest,
  type Runtime,
  runInTransaction,
} from '../context';
import { RestError } from '../errors';
import { parsePayload } from '../http/payload';
import { parseQuery } from '../parse/query';
import type { DbFunction } from '../schema/types';
import { qualified } from '../schema/types';
import { ident, type Params, qname } from '../sql/params';
import { wrapStatement } from '../sql/statement';
import { runRead } from './read';
import { baseHeaders, checkSingular, explain, finish, runStatement } from './respond';

const JSON_TYPES = new Set(['json', 'jsonb']);

const isSingleJson = (fn: DbFunction) =>
  fn.args.length === 1 && fn.args[0]?.name === '' && JSON_TYPES.has(fn.args[0].type);

function notFound(schema: string, name: string, keys: string[]): RestError {
  const sorted = [...keys].sort();
  const sig = sorted.length ? `(${sorted.join(', ')})` : ' without parameters';
  const params = sorted.length ? `with parameters ${sorted.join(', ')}` : 'without parameters';
  return new RestError(
    404,
    'PGRST202',
    `Could not find the function ${schema}.${name}${sig} in the schema cache`,
    `Searched for the function ${schema}.${name} ${params} or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.`,
    null,
  );
}

/** Picks the overload whose parameters match the given argument names (PGRST202/203). */
export function chooseFunction(
  candidates: DbFunction[],
  schema: string,
  name: string,
  keys: string[],
  hasBody: boolean,
): DbFunction {
  const named = candidates.filter(
    (fn) =>
      !isSingleJson(fn) &&
      keys.every((k) => fn.args.some((a) => a.name === k)) &&
      fn.args.every((a) => a.hasDefault || keys.includes(a.name)),
  );
  let chosen = named;
  if (chosen.length === 0 && hasBody) chosen = candidates.filter(isSingleJson);
  if (chosen.length === 0) throw notFound(schema, name, keys);
  if (chosen.length > 1) {
    const sigs = chosen.map(
      (fn) =>
        `${schema}.${name}(${fn.args.map((a) => `${a.name ? `${a.name} => ` : ''}${a.type}`).join(', ')})`,
    );
    throw new RestError(
      300,
      'PGRST203',
      `Could not choose the best candidate function between: ${sigs.join(', ')}`,
      null,
      'Try renaming the parameters or the function itself in the database so function overloading can be resolved',
    );
  }
  return chosen[0] as DbFunction;
}

/** `"s"."fn"(a := pgrst_args.a, …)` plus the FROM item that converts the arguments. */
function callSql(
  fn: DbFunction,
  args: Record<string, unknown>,
  rawBody: unknown,
  params: Params,
): { call: string; argsFrom: string | null } {
  const name = qname(fn.schema, fn.name);
  if (isSingleJson(fn)) {
    const type = fn.args[0]?.type as string;
    return {
      call: `${name}(${params.add(JSON.stringify(rawBody ?? {}))}::text::${type})`,
      argsFrom: null,
    };
  }
  const given = fn.args.filter((a) => a.name in args);
  if (given.length === 0) return { call: `${name}()`, argsFrom: null };
  const p = params.add(JSON.stringify(args));
  const defs = given.map((a) => `${ident(a.name)} ${a.type}`).join(', ');
  const call = `${name}(${given
    .map((a) => `${a.variadic ? 'VARIADIC ' : ''}${ident(a.name)} := pgrst_args.${ident(a.name)}`)
    .join(', ')})`;
  return { call, argsFrom: `json_to_record(${p}::text::json) AS pgrst_args(${defs})` };
}

/** GET/HEAD (read-only) and POST on `/rpc/fn`. */
export async function callFunction(
  rt: Runtime,
  req: RestRequest,
  fnName: string,
): Promise<Response> {
  const cache = rt.cache();
  const candidates = cache.functions.get(qualified(req.schema, fnName)) ?? [];
  const isGet = req.method === 'GET' || req.method === 'HEAD';
  const argNames = new Set(candidates.flatMap((fn) => fn.args.map((a) => a.name)));
  const parsed = parseQuery(req.pairs, (key) => isGet && argNames.has(key));
  let args: Record<string, unknown> = {};
  let rawBody: unknown = {};
  if (isGet) {
    for (const [k, v] of parsed.rawArgs) {
      const prev = args[k];
      args[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
    }
  } else {
    rawBody = req.bodyText.trim() ? parsePayload(req.contentType, req.bodyText) : {};
    if (typeof rawBody === 'object' && rawBody !== null && !Array.isArray(rawBody)) {
      args = rawBody as Record<string, unknown>;
    }
  }
  if (candidates.length === 0) throw notFound(req.schema, fnName, Object.keys(args));
  const fn = chooseFunction(candidates, req.schema, fnName, Object.keys(args), !isGet);
  const ctx = buildContext(rt, parsed);
  const { call, argsFrom } = callSql(fn, args, rawBody, ctx.params);
  const fromArgs = argsFrom ? ` FROM ${argsFrom}` : '';
  const lateral = (alias: string) =>
    argsFrom ? ` FROM ${argsFrom}, LATERAL ${call} AS ${alias}` : ` FROM ${call} AS ${alias}`;
  const readOnly = isGet;
  const composite = fn.returnTable !== null || fn.outColumns.length > 0;
  const { handling, maxAffected } = req.prefs;
  if (handling === 'strict' && maxAffected !== null && !fn.retset) {
    throw new RestError(
      400,
      'PGRST128',
      'Function must return SETOF or TABLE when max-affected preference is used with handling=strict',
      null,
      null,
    );
  }
  if (composite) {
    const table = fn.returnTable
      ? (cache.tables.get(qualified(fn.returnTable.schema, fn.returnTable.name)) ?? null)
      : null;
    const columns = table ? table.columns : fn.outColumns;
    const alias = ident(`pgrst_${++ctx.counter}`);
    const cte = `pgrst_source AS (SELECT pgrst_call.*${lateral('pgrst_call')})`;
    const source = { from: `pgrst_source AS ${alias}`, alias, name: fn.name, table, columns };
    if (!fn.retset && req.media.kind === 'json')
      req.media = { kind: 'object', stripNulls: req.media.stripNulls };
    return runRead(rt, req, { ctx, parsed, source, ctes: [cte] }, readOnly);
  }
  // Scalar, SETOF scalar, or void.
  const rows = fn.retset
    ? `SELECT pgrst_call.pgrst_scalar${lateral('pgrst_call(pgrst_scalar)')}`
    : `SELECT ${call} AS pgrst_scalar${fromArgs}`;
  const isVoid = fn.returnType === 'void';
  const sql = wrapStatement({
    ctes: [],
    rows,
    count: null,
    shape: isVoid ? 'none' : fn.retset ? 'scalars' : 'scalar',
    stripNulls: false,
  });
  const st = { sql, params: ctx.params.values };
  if (req.media.kind === 'plan') return explain(rt, req, st, readOnly);
  const outcome = await runInTransaction(rt, req, readOnly, async (tx) => {
    const out = await runStatement(tx, st);
    if (fn.retset && handling === 'strict' && maxAffected !== null && out.pageTotal > maxAffected) {
      throw new RestError(
        400,
        'PGRST124',
        'Query result exceeds max-affected preference constraint',
        `The query affects ${out.pageTotal} rows`,
        null,
      );
    }
    if (fn.retset) checkSingular(req, out);
    return out;
  });
  const headers = baseHeaders(rt, req);
  if (isVoid) return finish(req, outcome, 204, headers, null);
  headers.set('content-range', contentRange(0, fn.retset ? outcome.pageTotal : 1, null));
  let body = outcome.body;
  if (fn.retset && req.media.kind === 'object') {
    body = JSON.stringify((JSON.parse(body) as unknown[])[0] ?? null);
  }
  return finish(req, outcome, 200, headers, body);
}
