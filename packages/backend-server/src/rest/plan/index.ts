import type { RestRequest, Runtime } from '../context';
import { RestError } from '../errors';
import { closestMatch, NAME_MIN_SCORE } from '../schema/fuzzy';
import { qualified, type SchemaCache, type Table } from '../schema/types';
import { planCall } from './call';
import { planRead } from './read';
import type { Plan } from './types';
import { planInsert, planMutate } from './write';

export { readRequest } from './request';
export type * from './types';

function findTable(cache: SchemaCache, schema: string, name: string): Table {
  const table = cache.tables.get(qualified(schema, name));
  if (table) return table;
  const names = [...cache.tables.values()].filter((t) => t.schema === schema).map((t) => t.name);
  const guess = closestMatch(names, name, NAME_MIN_SCORE);
  throw new RestError(
    404,
    'PGRST205',
    `Could not find the table '${schema}.${name}' in the schema cache`,
    null,
    guess ? `Perhaps you meant the table '${schema}.${guess}'` : null,
  );
}

function allowFor(table: Table): string {
  const verbs = ['OPTIONS', 'GET', 'HEAD'];
  if (table.insertable) verbs.push('POST', 'PUT');
  if (table.updatable) verbs.push('PATCH');
  if (table.deletable) verbs.push('DELETE');
  return verbs.join(',');
}

const unsupported = (method: string) =>
  new RestError(405, 'PGRST117', `Unsupported HTTP method: ${method}`, null, null);

/**
 * The plan of a request read at the edge: its route (`/`, `/rpc/{fn}`, `/{relation}`;
 * PGRST117, PGRST101, PGRST125, PGRST205), then what the method does there.
 */
export function planRequest(rt: Runtime, req: RestRequest): Plan {
  const { method, path } = req;
  if (path === '/') {
    if (method === 'OPTIONS') return { kind: 'options', allow: 'OPTIONS,GET,HEAD' };
    if (method !== 'GET' && method !== 'HEAD') throw unsupported(method);
    return { kind: 'openapi' };
  }
  const segments = path.slice(1).split('/');
  let decoded: string[];
  try {
    decoded = segments.map((s) => decodeURIComponent(s));
  } catch {
    decoded = [];
  }
  const cache = rt.cache();
  if (decoded.length === 2 && decoded[0] === 'rpc' && decoded[1]) {
    const fnName = decoded[1];
    if (method === 'OPTIONS') {
      const fns = cache.functions.get(qualified(req.schema, fnName)) ?? [];
      const volatile = fns.some((f) => f.volatility === 'v');
      return { kind: 'options', allow: volatile ? 'OPTIONS,POST' : 'OPTIONS,GET,HEAD,POST' };
    }
    if (!['GET', 'HEAD', 'POST'].includes(method))
      throw new RestError(
        405,
        'PGRST101',
        'Only GET, HEAD or POST methods are allowed for RPC',
        null,
        null,
      );
    return planCall(rt, req, fnName);
  }
  if (decoded.length !== 1 || !decoded[0]) {
    throw new RestError(404, 'PGRST125', `Invalid path specified in request URL`, null, null);
  }
  const table = findTable(cache, req.schema, decoded[0]);
  switch (method) {
    case 'OPTIONS':
      return { kind: 'options', allow: allowFor(table) };
    case 'GET':
    case 'HEAD':
      return planRead(rt, req, table);
    case 'POST':
    case 'PUT':
      return planInsert(req, table);
    default:
      return planMutate(req, table);
  }
}
