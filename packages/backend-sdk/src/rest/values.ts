/**
 * Encoding of filter values in the PostgREST URL grammar.
 *
 * Inside lists (`in.(…)`, `cs.{…}`) and logic trees (`or=(…)`), the characters
 * `,` `.` `:` `(` `)` and `"` separate tokens, so a value that contains one of them,
 * or surrounding whitespace, must be double-quoted, with `"` and `\` escaped by `\`.
 */

/** A value that can appear in a filter. */
export type FilterValue = string | number | boolean | null | bigint;

const RESERVED = /[,.:()"\\]|^\s|\s$/;

/**
 * Quote one value for use inside a PostgREST list or logic tree, when it needs it.
 *
 * @example
 * quoteListValue('a,b') // '"a,b"'
 * quoteListValue('plain') // 'plain'
 */
export function quoteListValue(value: FilterValue): string {
  const text = value === null ? 'null' : String(value);
  if (typeof value !== 'string' || (text !== '' && !RESERVED.test(text))) return text;
  return `"${text.replace(/["\\]/g, '\\$&')}"`;
}

/**
 * The `(…)` list of an `in` filter.
 *
 * @example
 * inList(['a,b', 'c', 1]) // '("a,b",c,1)'
 */
export function inList(values: readonly FilterValue[]): string {
  return `(${values.map(quoteListValue).join(',')})`;
}

/**
 * The `{…}` literal of an array filter (`cs`, `cd`, `ov`).
 *
 * @example
 * arrayLiteral(['x', 'y z']) // '{x,"y z"}'
 */
export function arrayLiteral(values: readonly FilterValue[]): string {
  return `{${values.map(quoteListValue).join(',')}}`;
}
