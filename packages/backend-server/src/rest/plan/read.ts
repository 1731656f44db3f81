import type { RestRequest, Runtime } from '../context';
import { parseQuery } from '../parse/query';
import type { SchemaCache, Table } from '../schema/types';
import { rangeOf, rowsShape } from './shape';
import type { ReadPlan } from './types';

/**
 * Table read plans by everything they depend on, per schema cache (a reload starts afresh):
 * identical requests skip parsing (and, by plan, building: handlers/read.ts). Values stay
 * bind parameters, and who asks is not part of a plan (RLS decides in Postgres), so
 * requests may share them.
 */
const plans = new WeakMap<SchemaCache, Map<string, ReadPlan>>();
const PLANS_MAX = 500;

/** GET / HEAD on a table or view: the query string parsed (PGRST100), the range, the body. */
export function planRead(rt: Runtime, req: RestRequest, table: Table): ReadPlan {
  const cache = rt.cache();
  const key = [
    req.method,
    table.schema,
    table.name,
    req.search,
    req.prefs.count ?? '',
    JSON.stringify(req.media),
    req.rangeHeader ?? '',
  ].join('\0');
  let byKey = plans.get(cache);
  const hit = byKey?.get(key);
  if (hit) return hit;
  const plan: ReadPlan = {
    kind: 'read',
    table,
    query: parseQuery(req.pairs),
    range: rangeOf(req),
    body: rowsShape(req.media),
    location: `/${table.name}${req.search ? `?${req.search.replace(/^\?/, '')}` : ''}`,
  };
  if (!byKey || byKey.size >= PLANS_MAX) {
    byKey = new Map();
    plans.set(cache, byKey);
  }
  byKey.set(key, plan);
  return plan;
}
