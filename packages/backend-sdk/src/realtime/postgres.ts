/**
 * postgres_changes helpers: the filter builder for subscriptions and the conversion of
 * changed rows (text values typed by their column types) to JS values.
 */

type Scalar = string | number | boolean | null;

const literal = (v: Scalar): string => (v === null ? 'null' : String(v));
const listItem = (v: Scalar): string => {
  const s = literal(v);
  return /[,()"\s]/.test(s) ? `"${s.replace(/["\\]/g, '\\$&')}"` : s;
};

type Op = 'eq' | 'neq' | 'lt' | 'lte' | 'gt' | 'gte' | 'like' | 'ilike' | 'is';

/** The comparison operators of a postgres_changes filter: `column=op.value`. */
export interface PostgresFilter
  extends Record<Op, (column: string, value: Scalar) => PostgresFilter> {}

/**
 * Builds a `filter` for a postgres_changes subscription; conditions are ANDed. Immutable:
 * every method returns a new builder. Operators: `eq, neq, lt, lte, gt, gte, like, ilike, is`,
 * and `in` for a list.
 *
 * @example
 * channel.on('postgres_changes',
 *   { event: 'INSERT', schema: 'public', table: 'files', filter: pgFilter().eq('folder_id', id) },
 *   (change) => {});
 * pgFilter().gt('size', 10).in('kind', ['a', 'b']).toString(); // 'size=gt.10,kind=in.(a,b)'
 */
export class PostgresFilter {
  readonly #parts: readonly string[];
  constructor(parts: readonly string[] = []) {
    this.#parts = parts;
  }
  /** Adds `column=op.value` with an already encoded value. */
  filter(column: string, op: string, value: string): PostgresFilter {
    return new PostgresFilter([...this.#parts, `${column}=${op}.${value}`]);
  }
  in(column: string, values: readonly Scalar[]): PostgresFilter {
    return this.filter(column, 'in', `(${values.map(listItem).join(',')})`);
  }
  /** The `filter` string the server parses. */
  toString(): string {
    return this.#parts.join(',');
  }
}

for (const op of ['eq', 'neq', 'lt', 'lte', 'gt', 'gte', 'like', 'ilike', 'is'] as const) {
  PostgresFilter.prototype[op] = function (this: PostgresFilter, column: string, value: Scalar) {
    return this.filter(column, op, literal(value));
  };
}

/** Starts a postgres_changes filter. */
export const pgFilter = (): PostgresFilter => new PostgresFilter();

const NUMERIC = /^(int[248]|float[48]|numeric|oid|money)$/;

/** Parses a Postgres array literal `{a,"b c",NULL}` into strings/nulls (one level deep). */
const parseArray = (text: string): Array<string | null> | string => {
  if (!text.startsWith('{') || !text.endsWith('}')) return text;
  const out: Array<string | null> = [];
  const re = /"((?:[^"\\]|\\.)*)"|([^,{}]+)/g;
  for (const m of text.slice(1, -1).matchAll(re)) {
    out.push(
      m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : m[2] === 'NULL' ? null : (m[2] ?? ''),
    );
  }
  return out;
};

/**
 * Converts one value by its Postgres type name, the way the official client does.
 *
 * @example
 * convertValue('int4', '5'); // 5
 * convertValue('_text', '{a,b}'); // ['a', 'b']
 */
export function convertValue(type: string, value: unknown): unknown {
  if (typeof value !== 'string') return value;
  if (type.startsWith('_')) {
    const items = parseArray(value);
    return Array.isArray(items) ? items.map((v) => convertValue(type.slice(1), v)) : items;
  }
  if (type === 'bool')
    return value === 't' || value === 'true'
      ? true
      : value === 'f' || value === 'false'
        ? false
        : value;
  if (NUMERIC.test(type)) {
    const n = Number(value);
    return Number.isNaN(n) ? value : n;
  }
  if (type === 'json' || type === 'jsonb') {
    try {
      return JSON.parse(value);
    } catch {
      return value;
    }
  }
  if (type === 'timestamp') return value.replace(' ', 'T');
  return value;
}

/** Converts every column of a row by the types in `columns`. */
export function convertRow(
  columns: ReadonlyArray<{ name: string; type: string }> | undefined,
  row: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...row };
  for (const { name, type } of columns ?? [])
    if (name in out) out[name] = convertValue(type, out[name]);
  return out;
}
