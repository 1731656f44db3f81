import { arrayLiteral, quoteIdent, quoteQualified } from '../../db/quote';
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
import { findFunction, type RpcBody } from '../schema/routines';
import type { DbFunction } from '../schema/types';
import { qualified } from '../schema/types';
import type { Params } from '../sql/params';
import { cteSource } from '../sql/read';
import { wrapStatement } from '../sql/statement';
import { checkMaxAffected, runRead } from './read';
import { baseHeaders, checkSingular, explain, finish, runStatement } from './respond';

/** How a POST body is sent, from its Content-Type (JSON when there is none). */
function bodyKind(req: RestRequest): RpcBody {
  if (req.method !== 'POST') return 'none';
  const type = (req.contentType ?? 'application/json').split(';')[0]?.trim().toLowerCase();
  switch (type) {
    case 'application/x-www-form-urlencoded':
      return 'form';
    case 'text/plain':
      return 'text';
    case 'text/xml':
    case 'application/xml':
      return 'xml';
    case 'application/octet-stream':
      return 'binary';
    default:
      return 'json';
  }
}

/** The call's arguments: by name (query string, form), or a JSON body to unpack. */
type CallArgs =
  | { kind: 'direct'; values: Map<string, string | string[]> }
  | { kind: 'json'; text: string | null; keys: string[] }
  | { kind: 'raw'; text: string };

function callArgs(req: RestRequest, body: RpcBody, rawArgs: [string, string][]): CallArgs {
  if (body === 'none') {
    const values = new Map<string, string | string[]>();
    for (const [k, v] of rawArgs) {
      const prev = values.get(k);
      values.set(k, prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v]);
    }
    return { kind: 'direct', values };
  }
  if (body === 'form') {
    const values = new Map<string, string | string[]>();
    for (const [k, v] of new URLSearchParams(req.bodyText)) values.set(k, v);
    return { kind: 'direct', values };
  }
  if (body === 'binary') {
    // Bytes as bytea's hex input form, so they reach the function unchanged.
    return { kind: 'raw', text: `\\x${Buffer.from(req.bodyBytes ?? []).toString('hex')}` };
  }
  if (body !== 'json') return { kind: 'raw', text: req.bodyText };
  if (!req.bodyText.trim()) return { kind: 'json', text: null, keys: [] };
  const parsed = parsePayload('application/json', req.bodyText);
  let keys: string[] = [];
  if (Array.isArray(parsed)) {
    keys = [...new Set(parsed.flatMap((o) => (o && typeof o === 'object' ? Object.keys(o) : [])))];
  } else if (parsed && typeof parsed === 'object') keys = Object.keys(parsed);
  return { kind: 'json', text: req.bodyText, keys };
}

const argKeys = (args: CallArgs): Set<string> =>
  new Set(args.kind === 'direct' ? args.values.keys() : args.kind === 'json' ? args.keys : []);

/** The value of one named argument, as text cast to the parameter's type. */
function directArg(params: Params, value: string | string[], variadic: boolean, type: string) {
  const values = Array.isArray(value) ? value : [value];
  if (variadic) return `${params.add(arrayLiteral(values))}::${type}`;
  // Repeated non-variadic parameters: the last one counts.
  return `${params.add(values[values.length - 1] as string)}::text::${type}`;
}

/** `FROM …` producing the call's rows: `pgrst_call` (a composite row or `pgrst_scalar`). */
function callFrom(fn: DbFunction, args: CallArgs, params: Params, scalar: boolean): string {
  const name = quoteQualified(fn.schema, fn.name);
  const wrap = (call: string) =>
    scalar ? `(SELECT ${call} AS pgrst_scalar) AS pgrst_call` : `${call} AS pgrst_call`;
  const single = fn.args.length === 1 && fn.args[0]?.name === '' ? fn.args[0] : null;
  if (single) {
    // One unnamed parameter: the whole body (or the arguments as a JSON object) is its value.
    const text =
      args.kind === 'raw'
        ? args.text
        : args.kind === 'json'
          ? args.text
          : JSON.stringify(Object.fromEntries(args.values));
    const value = text === null ? 'NULL' : params.add(text);
    return `FROM ${wrap(`${name}(${value}::text::${single.castType})`)}`;
  }
  const keys = argKeys(args);
  const given = fn.args.filter((a) => keys.has(a.name));
  if (given.length === 0) return `FROM ${wrap(`${name}()`)}`;
  if (args.kind === 'direct') {
    const list = given.map(
      (a) =>
        `${a.variadic ? 'VARIADIC ' : ''}${quoteIdent(a.name)} := ${directArg(params, args.values.get(a.name) as string, a.variadic, a.castType)}`,
    );
    return `FROM ${wrap(`${name}(${list.join(', ')})`)}`;
  }
  const body = args.kind === 'json' ? args.text : null;
  const defs = given.map((a) => `${quoteIdent(a.name)} ${a.castType}`).join(', ');
  const list = given.map(
    (a) =>
      `${a.variadic ? 'VARIADIC ' : ''}${quoteIdent(a.name)} := pgrst_body.${quoteIdent(a.name)}`,
  );
  return `FROM json_to_record(${body === null ? 'NULL' : params.add(body)}::text::json) AS pgrst_body(${defs}), LATERAL ${wrap(`${name}(${list.join(', ')})`)}`;
}

/** GET/HEAD (read-only) and POST on `/rpc/fn`. */
export async function callFunction(
  rt: Runtime,
  req: RestRequest,
  fnName: string,
): Promise<Response> {
  const cache = rt.cache();
  const body = bodyKind(req);
  const parsed = parseQuery(req.pairs, body === 'none');
  const args = callArgs(req, body, parsed.rawArgs);
  const fn = findFunction(cache, req.schema, fnName, argKeys(args), body);
  const ctx = buildContext(rt, req, parsed);
  // Read-only for GET, and for POST to a stable or immutable function, as on the hosted
  // backend (so such a call may go in one round trip).
  const readOnly = body === 'none' || fn.volatility !== 'v';
  const composite = fn.returnTable !== null || fn.outColumns.length > 0 || fn.returnTyptype === 'c';
  const { handling, maxAffected } = req.prefs;
  const strictMax = handling === 'strict' && maxAffected !== null ? maxAffected : null;
  if (strictMax !== null && !fn.retset) {
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
    const type = cache.composites.find(
      (c) => qualified(c.schema, c.name) === fn.returnType || c.name === fn.returnType,
    );
    const columns = table
      ? table.columns
      : fn.outColumns.length > 0
        ? fn.outColumns
        : (type?.attributes.map((a) => ({ ...a, baseType: a.type })) ?? []);
    const alias = table?.name ?? type?.name ?? fn.name;
    const cte = `pgrst_source AS (SELECT pgrst_call.* ${callFrom(fn, args, ctx.params, false)})`;
    return runRead(
      rt,
      req,
      {
        ctx,
        parsed,
        source: cteSource(alias, table, columns),
        ctes: [cte],
        singleRow: !fn.retset,
        maxAffected: strictMax,
      },
      readOnly,
    );
  }
  // Scalar, SETOF scalar, or void.
  const isVoid = fn.returnType === 'void';
  const wantsCount = req.prefs.count === 'exact' || req.prefs.count === 'estimated';
  const sql = wrapStatement({
    ctes: [
      `pgrst_source AS (SELECT pgrst_call.pgrst_scalar ${callFrom(fn, args, ctx.params, true)})`,
    ],
    rows: 'SELECT pgrst_scalar FROM pgrst_source',
    count: wantsCount ? 'SELECT count(*) FROM pgrst_source' : null,
    shape: isVoid ? 'none' : fn.retset ? 'scalars' : 'scalar',
    stripNulls: false,
  });
  const st = { sql, params: ctx.params.values };
  if (req.media.kind === 'plan') return explain(rt, req, st, readOnly);
  const outcome = await runInTransaction(rt, req, readOnly, async (tx) => {
    const out = await runStatement(tx, st);
    if (fn.retset) checkMaxAffected(strictMax, out);
    if (fn.retset) checkSingular(req, out);
    return out;
  });
  const headers = baseHeaders(rt, req);
  if (isVoid) return finish(req, outcome, 204, headers, null);
  headers.set('content-range', contentRange(0, outcome.pageTotal, outcome.total));
  let text = outcome.body;
  if (fn.retset && req.media.kind === 'object') {
    text = JSON.stringify((JSON.parse(text) as unknown[])[0] ?? null);
  }
  return finish(req, outcome, 200, headers, text);
}
