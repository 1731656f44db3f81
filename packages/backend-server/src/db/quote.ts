/**
 * Quoting of SQL identifiers and literals: the one place the server writes a name or a text
 * into SQL by hand. Values from requests go as bind parameters wherever a statement takes
 * them; these are for names (read from the catalog or checked against the schema cache),
 * for texts in SQL that takes no parameters (DDL, a dump script), and for the few literals
 * that must appear verbatim in the SQL text (a JSON key repeated in SELECT and GROUP BY).
 *
 * Literals assume `standard_conforming_strings = on` (the default since PostgreSQL 9.1):
 * a backslash is an ordinary character.
 */

/**
 * A double-quoted identifier (`"` doubled), whatever its case or characters.
 *
 * @example
 * quoteIdent('my "table"'); // '"my ""table"""'
 */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/**
 * A schema-qualified name, both parts quoted.
 *
 * @example
 * quoteQualified('public', 'todos'); // '"public"."todos"'
 */
export function quoteQualified(schema: string, name: string): string {
  return `${quoteIdent(schema)}.${quoteIdent(name)}`;
}

/**
 * A single-quoted string literal (`'` doubled). A NUL character is kept, so that Postgres
 * refuses the statement rather than receiving a silently different text.
 *
 * @example
 * quoteLiteral("it's"); // "'it''s'"
 */
export function quoteLiteral(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/**
 * A JSON path key for `->` / `->>`: an integer stays a bare integer (an array index), any
 * other key is a string literal with NUL characters removed (a text can hold none, and the
 * key comes from a request).
 *
 * @example
 * quoteJsonKey('0'); // '0'
 * quoteJsonKey("a'b"); // "'a''b'"
 */
export function quoteJsonKey(key: string): string {
  if (/^-?\d+$/.test(key)) return key;
  return quoteLiteral(key.replace(/\0/g, ''));
}

/**
 * A Postgres array literal of texts, `{"a","b",NULL}`: every element double-quoted with
 * `\` and `"` backslash-escaped, `null` as an unquoted NULL. It is a value, bound as one
 * parameter and cast to the array type by Postgres.
 *
 * @example
 * arrayLiteral(['a,b', null, 'say "hi"']); // '{"a,b",NULL,"say \\"hi\\""}'
 */
export function arrayLiteral(values: readonly (string | null)[]): string {
  const items = values.map((v) =>
    v === null ? 'NULL' : `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`,
  );
  return `{${items.join(',')}}`;
}
