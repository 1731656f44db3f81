/**
 * Type-aware editing of table values: which input a column gets, how a stored value is
 * shown in it, and how the text typed back becomes the value sent to the REST API.
 * Pure functions (unit-tested).
 */

import type { ColumnInfo } from '@app/backend-server/console-api';

export type InputKind =
  | 'boolean'
  | 'integer'
  | 'number'
  | 'date'
  | 'time'
  | 'timestamp'
  | 'json'
  | 'array'
  | 'enum'
  | 'uuid'
  | 'text';

const INTEGER = new Set(['int2', 'int4', 'int8', 'oid']);

/** The input for a column's type. */
export function inputKind(column: ColumnInfo): InputKind {
  if (column.enumValues) return 'enum';
  if (column.category === 'A') return 'array';
  if (column.udt === 'json' || column.udt === 'jsonb') return 'json';
  if (column.udt === 'uuid') return 'uuid';
  if (column.category === 'B') return 'boolean';
  if (INTEGER.has(column.udt)) return 'integer';
  if (column.category === 'N') return 'number';
  if (column.udt === 'date') return 'date';
  if (column.udt === 'time' || column.udt === 'timetz') return 'time';
  if (column.category === 'D') return 'timestamp';
  return 'text';
}

/** True when the database computes the column and it must not be written. */
export const readOnly = (column: ColumnInfo) => column.generated || column.identity === 'always';

/** The text an input shows for a stored value (null shows as empty; the null box says null). */
export function toText(value: unknown, kind: InputKind): string {
  if (value === null || value === undefined) return '';
  if (kind === 'json' || kind === 'array') {
    return typeof value === 'string' && kind === 'json'
      ? JSON.stringify(value)
      : JSON.stringify(value, null, 2);
  }
  return String(value);
}

export type Parsed = { ok: true; value: unknown } | { ok: false; message: string };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The value to send for what was typed: numbers stay exact (int8 and numeric go as
 * strings, so no precision is lost), JSON and arrays are parsed, anything else is text
 * that Postgres parses itself. `null` when the null box is ticked.
 */
export function fromText(text: string, kind: InputKind, isNull: boolean): Parsed {
  if (isNull) return { ok: true, value: null };
  switch (kind) {
    case 'boolean':
      if (text === 'true' || text === 'false') return { ok: true, value: text === 'true' };
      return { ok: false, message: 'Choose true or false' };
    case 'integer':
      if (!/^-?\d+$/.test(text.trim())) return { ok: false, message: 'Enter a whole number' };
      return { ok: true, value: text.trim() };
    case 'number': {
      const t = text.trim();
      if (!/^(-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?|NaN|-?Infinity)$/.test(t))
        return { ok: false, message: 'Enter a number' };
      return { ok: true, value: t };
    }
    case 'json':
      try {
        return { ok: true, value: JSON.parse(text) };
      } catch {
        return { ok: false, message: 'Enter valid JSON' };
      }
    case 'array': {
      try {
        const value = JSON.parse(text) as unknown;
        if (Array.isArray(value)) return { ok: true, value };
      } catch {}
      return { ok: false, message: 'Enter a JSON array, e.g. ["a", "b"]' };
    }
    case 'uuid':
      return UUID.test(text.trim())
        ? { ok: true, value: text.trim().toLowerCase() }
        : { ok: false, message: 'Enter a UUID' };
    default:
      return { ok: true, value: text };
  }
}

/** Shortens a value for a table cell. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return text.length > 120 ? `${text.slice(0, 117)}…` : text;
}
