import { arrayLiteral, quoteIdent, quoteQualified } from '../../db/quote';
import {
  buildContext,
  contentRange,
  type RestRequest,
  type Runtime,
  runInTransaction,
} from '../context';
import { argKeys } from '../plan/call';
import type { CallArgs, CallPlan } from '../plan/types';
import type { DbFunction } from '../schema/types';
import type { Params } from '../sql/params';
import { cteSource } from '../sql/read';
import { wrapStatement } from '../sql/statement';
import { checkMaxAffected, runRead } from './read';
import { baseHeaders, checkSingular, explain, finish, runStatement } from './respond';

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

/** Executes a GET/HEAD (read-only) or POST on `/rpc/fn`. */
export async function executeCall(
  rt: Runtime,
  req: RestRequest,
  plan: CallPlan,
): Promise<Response> {
  const { fn, args, readOnly, result } = plan;
  const ctx = buildContext(rt, req, plan.query);
  if (result.kind === 'rows') {
    const { table, columns, name } = result.source;
    const cte = `pgrst_source AS (SELECT pgrst_call.* ${callFrom(fn, args, ctx.params, false)})`;
    return runRead(
      rt,
      req,
      {
        ctx,
        query: plan.query,
        source: cteSource(name, table, columns),
        ctes: [cte],
        range: plan.range,
        body: result.body,
        maxAffected: plan.maxAffected,
      },
      readOnly,
    );
  }
  const wantsCount = req.prefs.count === 'exact' || req.prefs.count === 'estimated';
  const sql = wrapStatement({
    ctes: [
      `pgrst_source AS (SELECT pgrst_call.pgrst_scalar ${callFrom(fn, args, ctx.params, true)})`,
    ],
    rows: 'SELECT pgrst_scalar FROM pgrst_source',
    count: wantsCount ? 'SELECT count(*) FROM pgrst_source' : null,
    shape: result.shape,
    stripNulls: false,
  });
  const st = { sql, params: ctx.params.values };
  if (req.media.kind === 'plan') return explain(rt, req, st, readOnly);
  const outcome = await runInTransaction(rt, req, readOnly, async (tx) => {
    const out = await runStatement(tx, st);
    if (fn.retset) checkMaxAffected(plan.maxAffected, out);
    if (fn.retset) checkSingular(req, out);
    return out;
  });
  const headers = baseHeaders(rt, req);
  if (result.shape === 'none') return finish(req, outcome, 204, headers, null);
  headers.set('content-range', contentRange(0, outcome.pageTotal, outcome.total));
  let text = outcome.body;
  if (fn.retset && req.media.kind === 'object') {
    text = JSON.stringify((JSON.parse(text) as unknown[])[0] ?? null);
  }
  return finish(req, outcome, 200, headers, text);
}
