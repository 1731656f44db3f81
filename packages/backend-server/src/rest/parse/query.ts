import { parseError, RestError } from '../errors';
import {
  emptyLevel,
  type Field,
  type Filter,
  type Level,
  type OrderTerm,
  type ParsedQuery,
} from './ast';
import { Cursor } from './cursor';
import { parseFilter, parseLogic, splitList } from './filter';
import { parseSelect } from './select';

/** Splits a query string the PostgREST way: `+` is a space. Bad escapes are PGRST100. */
export function queryPairs(search: string): [string, string][] {
  const out: [string, string][] = [];
  const text = search.startsWith('?') ? search.slice(1) : search;
  if (!text) return out;
  for (const part of text.split('&')) {
    if (!part) continue;
    const eq = part.indexOf('=');
    const rawKey = eq < 0 ? part : part.slice(0, eq);
    const rawValue = eq < 0 ? '' : part.slice(eq + 1);
    try {
      out.push([
        decodeURIComponent(rawKey.replace(/\+/g, ' ')),
        decodeURIComponent(rawValue.replace(/\+/g, ' ')),
      ]);
    } catch {
      throw parseError('Invalid query string encoding', `could not decode "${part}"`);
    }
  }
  return out;
}

function nonNegative(value: string, name: string): number {
  if (!/^\d+$/.test(value)) {
    if (/^-\d+$/.test(value) && name.endsWith('limit')) {
      throw new RestError(416, 'PGRST103', 'Requested range not satisfiable', null);
    }
    throw parseError(
      `"failed to parse ${name} parameter (${value})" (line 1, column 1)`,
      'unexpected input expecting digit',
    );
  }
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw parseError(`${name} is too large`, value);
  return n;
}

function parseOrder(text: string): OrderTerm[] {
  const terms: OrderTerm[] = [];
  for (const raw of splitList(text)) {
    const c = new Cursor(raw, 'order');
    let relation: string | null = null;
    let field: Field = c.field();
    if (c.eat('(')) {
      relation = field.name;
      field = c.field();
      c.expect(')');
    }
    let direction: OrderTerm['direction'] = null;
    let nulls: OrderTerm['nulls'] = null;
    while (c.eat('.')) {
      const word = c.ident();
      if (word === 'asc' || word === 'desc') direction = word;
      else if (word === 'nullsfirst') nulls = 'first';
      else if (word === 'nullslast') nulls = 'last';
      else c.fail('expecting "asc", "desc", "nullsfirst" or "nullslast"');
    }
    if (!c.done) c.fail('expecting "," or end of input');
    terms.push({ relation, field, direction, nulls });
  }
  return terms;
}

function parseColumns(text: string): string[] {
  return splitList(text).map((s) => s.trim());
}

/** Splits a filter key `a.b.col->x` into the embed path and the field. */
function filterKey(key: string): { path: string; field: Field } {
  const c = new Cursor(key, 'filter');
  const parts: string[] = [c.ident()];
  while (c.eat('.')) parts.push(c.ident());
  const jsonPath = c.jsonPath();
  if (!c.done) c.fail('expecting "->" or end of input');
  const name = parts.pop() as string;
  return { path: parts.join('.'), field: { name, path: jsonPath } };
}

/**
 * Parses a query string into the request AST. For a GET/HEAD rpc (`rpcRead`), a parameter
 * whose value has no operator is a function argument (`?name=Ann`), as PostgREST reads it.
 */
export function parseQuery(pairs: [string, string][], rpcRead = false): ParsedQuery {
  const parsed: ParsedQuery = {
    select: null,
    columns: null,
    onConflict: null,
    levels: new Map(),
    rawArgs: [],
  };
  const level = (path: string): Level => {
    let l = parsed.levels.get(path);
    if (!l) {
      l = emptyLevel();
      parsed.levels.set(path, l);
    }
    return l;
  };
  for (const [key, value] of pairs) {
    if (key === 'select') {
      parsed.select = parseSelect(value);
      continue;
    }
    if (key === 'columns') {
      parsed.columns = parseColumns(value);
      continue;
    }
    if (key === 'on_conflict') {
      parsed.onConflict = parseColumns(value);
      continue;
    }
    const segments = key.split('.');
    const last = segments[segments.length - 1] as string;
    const prefix = (n: number) => segments.slice(0, segments.length - n).join('.');
    if (last === 'order') {
      const l = level(prefix(1));
      l.order = [...(l.order ?? []), ...parseOrder(value)];
    } else if (last === 'limit') level(prefix(1)).limit = nonNegative(value, 'limit');
    else if (last === 'offset') level(prefix(1)).offset = nonNegative(value, 'offset');
    else if (last === 'or' || last === 'and') {
      const negate = segments[segments.length - 2] === 'not';
      level(prefix(negate ? 2 : 1)).logic.push(parseLogic(last, negate, value));
    } else {
      const { path, field } = filterKey(key);
      let filter: Filter;
      try {
        filter = parseFilter(field, value);
      } catch (error) {
        if (!rpcRead || !(error instanceof RestError) || error.code !== 'PGRST100') throw error;
        parsed.rawArgs.push([field.name, value]);
        continue;
      }
      level(path).filters.push(filter);
    }
  }
  return parsed;
}
