/** Collects bind parameters while SQL text is built: values never enter the SQL text. */
export class Params {
  readonly values: unknown[] = [];
  /** Adds a value and returns its placeholder (`$n`). */
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** Quotes an identifier that was checked against the schema cache. */
export const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** `"schema"."name"` */
export const qname = (schema: string, name: string) => `${ident(schema)}.${ident(name)}`;

/**
 * A JSON path key as an SQL literal (integers stay integers). Keys are embedded as
 * literals because the same expression may appear in SELECT and GROUP BY.
 */
export function jsonKey(key: string): string {
  if (/^-?\d+$/.test(key)) return key;
  return `'${key.replace(/\0/g, '').replace(/'/g, "''")}'`;
}

/** A Postgres array literal `{"a","b"}` for a list of strings (bound as one parameter). */
export function pgArray(values: readonly (string | null)[]): string {
  const items = values.map((v) =>
    v === null ? 'NULL' : `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`,
  );
  return `{${items.join(',')}}`;
}
