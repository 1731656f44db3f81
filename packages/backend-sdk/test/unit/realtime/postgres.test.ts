import { describe, expect, it } from 'vitest';
import { convertRow, convertValue, pgFilter } from '../../../src/realtime/postgres';

describe('postgres_changes helpers', () => {
  it('builds filter strings, immutably, ANDed with commas', () => {
    const base = pgFilter().eq('owner', 'u1');
    expect(base.toString()).toBe('owner=eq.u1');
    expect(base.gt('size', 10).in('kind', ['a b', 'c', 3]).toString()).toBe(
      'owner=eq.u1,size=gt.10,kind=in.("a b",c,3)',
    );
    expect(base.toString()).toBe('owner=eq.u1');
    expect(pgFilter().is('deleted_at', null).neq('n', 1).lte('m', 2).toString()).toBe(
      'deleted_at=is.null,n=neq.1,m=lte.2',
    );
  });

  it('converts text values by column type', () => {
    expect(convertValue('bool', 't')).toBe(true);
    expect(convertValue('int8', '42')).toBe(42);
    expect(convertValue('numeric', '1.5')).toBe(1.5);
    expect(convertValue('jsonb', '{"a":[1]}')).toEqual({ a: [1] });
    expect(convertValue('timestamp', '2024-01-01 10:00:00')).toBe('2024-01-01T10:00:00');
    expect(convertValue('_int4', '{1,2,NULL}')).toEqual([1, 2, null]);
    expect(convertValue('_text', '{a,"b,c"}')).toEqual(['a', 'b,c']);
    expect(convertValue('text', '5')).toBe('5');
    expect(convertValue('int4', 5)).toBe(5);
    expect(
      convertRow(
        [
          { name: 'id', type: 'int4' },
          { name: 'done', type: 'bool' },
        ],
        { id: '5', done: 'f', other: 'x' },
      ),
    ).toEqual({ id: 5, done: false, other: 'x' });
  });
});
