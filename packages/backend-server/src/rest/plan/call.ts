import type { RestRequest, Runtime } from '../context';
import { RestError } from '../errors';
import { parsePayload } from '../http/payload';
import { parseQuery } from '../parse/query';
import { findFunction, type RpcBody } from '../schema/routines';
import { qualified } from '../schema/types';
import { rangeOf, rowsShape } from './shape';
import type { CallArgs, CallPlan, CallResult } from './types';

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

/** The names of the arguments given. */
export const argKeys = (args: CallArgs): Set<string> =>
  new Set(args.kind === 'direct' ? args.values.keys() : args.kind === 'json' ? args.keys : []);

/**
 * GET / HEAD / POST on `/rpc/fn`: the query string (PGRST100; for a GET, parameters without
 * an operator are arguments), the body's arguments (PGRST102), the overload they fit
 * (PGRST202 / PGRST203), `max-affected` (PGRST128), and what the function returns.
 */
export function planCall(rt: Runtime, req: RestRequest, fnName: string): CallPlan {
  const cache = rt.cache();
  const body = bodyKind(req);
  const query = parseQuery(req.pairs, body === 'none');
  const args = callArgs(req, body, query.rawArgs);
  const fn = findFunction(cache, req.schema, fnName, argKeys(args), body);
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
  let result: CallResult;
  if (composite) {
    const table = fn.returnTable
      ? (cache.tables.get(qualified(fn.returnTable.schema, fn.returnTable.name)) ?? null)
      : null;
    const isReturnType = (c: { schema: string; name: string }) =>
      qualified(c.schema, c.name) === fn.returnType || c.name === fn.returnType;
    const type = cache.composites.find(isReturnType) ?? cache.resultRowTypes.find(isReturnType);
    const columns = table
      ? table.columns
      : fn.outColumns.length > 0
        ? fn.outColumns
        : (type?.attributes.map((a) => ({ ...a, baseType: a.type })) ?? []);
    result = {
      kind: 'rows',
      source: { table, columns, name: table?.name ?? type?.name ?? fn.name },
      body: rowsShape(req.media, !fn.retset),
    };
  } else {
    // Scalar, SETOF scalar, or void.
    const shape = fn.returnType === 'void' ? 'none' : fn.retset ? 'scalars' : 'scalar';
    result = { kind: 'scalar', shape };
  }
  return {
    kind: 'call',
    fn,
    query,
    args,
    readOnly,
    range: rangeOf(req),
    maxAffected: strictMax,
    result,
  };
}
