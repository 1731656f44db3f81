import type { ColumnInfo } from '@app/backend-server/console-api';
import { describe, expect, it } from 'vitest';
import { cellText, fromText, inputKind, readOnly, toText } from '../../../src/lib/values';

const column = (over: Partial<ColumnInfo>): ColumnInfo => ({
  name: 'c',
  type: 'text',
  udt: 'text',
  category: 'S',
  nullable: true,
  default: null,
  identity: null,
  generated: false,
  enumValues: null,
  ...over,
});

describe('inputKind', () => {
  it('picks an input per type', () => {
    expect(inputKind(column({ udt: 'bool', category: 'B' }))).toBe('boolean');
    expect(inputKind(column({ udt: 'int8', category: 'N' }))).toBe('integer');
    expect(inputKind(column({ udt: 'numeric', category: 'N' }))).toBe('number');
    expect(inputKind(column({ udt: 'timestamptz', category: 'D' }))).toBe('timestamp');
    expect(inputKind(column({ udt: 'date', category: 'D' }))).toBe('date');
    expect(inputKind(column({ udt: 'jsonb', category: 'U' }))).toBe('json');
    expect(inputKind(column({ udt: '_text', category: 'A' }))).toBe('array');
    expect(inputKind(column({ udt: 'mood', category: 'E', enumValues: ['a'] }))).toBe('enum');
    expect(inputKind(column({ udt: 'uuid', category: 'U' }))).toBe('uuid');
    expect(inputKind(column({}))).toBe('text');
  });

  it('marks computed columns read-only', () => {
    expect(readOnly(column({ generated: true }))).toBe(true);
    expect(readOnly(column({ identity: 'always' }))).toBe(true);
    expect(readOnly(column({ identity: 'by default' }))).toBe(false);
  });
});

describe('fromText', () => {
  it('keeps big integers and decimals exact', () => {
    expect(fromText('9007199254740993', 'integer', false)).toEqual({
      ok: true,
      value: '9007199254740993',
    });
    expect(fromText('0.1000000000000000000001', 'number', false)).toEqual({
      ok: true,
      value: '0.1000000000000000000001',
    });
    expect(fromText('1.5', 'integer', false).ok).toBe(false);
    expect(fromText('abc', 'number', false).ok).toBe(false);
  });

  it('parses JSON, arrays, booleans, uuids and nulls', () => {
    expect(fromText('{"a": [1]}', 'json', false)).toEqual({ ok: true, value: { a: [1] } });
    expect(fromText('{nope', 'json', false)).toEqual({ ok: false, message: 'Enter valid JSON' });
    expect(fromText('["x"]', 'array', false)).toEqual({ ok: true, value: ['x'] });
    expect(fromText('{"x": 1}', 'array', false).ok).toBe(false);
    expect(fromText('false', 'boolean', false)).toEqual({ ok: true, value: false });
    expect(fromText('', 'text', true)).toEqual({ ok: true, value: null });
    expect(fromText('ABCDEF00-0000-4000-8000-000000000000', 'uuid', false)).toEqual({
      ok: true,
      value: 'abcdef00-0000-4000-8000-000000000000',
    });
    expect(fromText('not-a-uuid', 'uuid', false).ok).toBe(false);
  });

  it('round-trips through toText', () => {
    const doc = { k: [1, 'two', null] };
    expect(fromText(toText(doc, 'json'), 'json', false)).toEqual({ ok: true, value: doc });
    expect(toText(null, 'text')).toBe('');
    expect(cellText(null)).toBe('NULL');
    expect(cellText('x'.repeat(200))).toHaveLength(118);
  });
});
