import { describe, expect, it } from 'vitest';
import { arrayLiteral, inList, quoteListValue } from '../../../src/rest/values';

describe('quoteListValue', () => {
  it.each([
    ['plain', 'plain'],
    ['a,b', '"a,b"'],
    ['1.5', '"1.5"'],
    ['x:y', '"x:y"'],
    ['f(x)', '"f(x)"'],
    ['say "hi"', '"say \\"hi\\""'],
    ['back\\slash', '"back\\\\slash"'],
    [' padded', '" padded"'],
    ['', '""'],
  ])('%j → %s', (input, expected) => {
    expect(quoteListValue(input)).toBe(expected);
  });

  it('leaves numbers, booleans and null unquoted', () => {
    expect([1.5, 42n, true, null].map(quoteListValue)).toEqual(['1.5', '42', 'true', 'null']);
  });
});

describe('lists', () => {
  it('builds in-lists and array literals', () => {
    expect(inList(['a,b', 'c', 1])).toBe('("a,b",c,1)');
    expect(arrayLiteral(['x', 'y z', 'w)'])).toBe('{x,y z,"w)"}');
    expect(inList([])).toBe('()');
  });
});
