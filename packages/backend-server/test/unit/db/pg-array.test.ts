import { describe, expect, it } from 'vitest';
import { parseArray } from '../../../src/db/pg-array';

describe('parseArray', () => {
  it('reads NULL elements as null and quoted "NULL" as the string', () => {
    expect(parseArray('{a,NULL,"NULL",null}')).toEqual(['a', null, 'NULL', null]);
  });

  it('unescapes quoted elements (delimiters, quotes, backslashes, braces, spaces)', () => {
    expect(parseArray('{"a,b","say \\"hi\\"","back\\\\slash","{x}"," pad "}')).toEqual([
      'a,b',
      'say "hi"',
      'back\\slash',
      '{x}',
      ' pad ',
    ]);
  });

  it('reads nested arrays, empty arrays and a dimensions prefix', () => {
    expect(parseArray('{{1,2},{3,NULL}}', Number)).toEqual([
      [1, 2],
      [3, null],
    ]);
    expect(parseArray('{}')).toEqual([]);
    expect(parseArray('[0:1]={7,8}', Number)).toEqual([7, 8]);
  });

  it("uses the type's delimiter (box arrays use ';')", () => {
    expect(parseArray('{(1,1),(0,0);(2,2),(1,1)}', (s) => s, ';')).toEqual([
      '(1,1),(0,0)',
      '(2,2),(1,1)',
    ]);
  });

  it('refuses text that is not an array literal', () => {
    expect(() => parseArray('a,b')).toThrow(SyntaxError);
    expect(() => parseArray('{a,b')).toThrow(SyntaxError);
  });
});
