import { describe, expect, it } from 'vitest';
import { highlightParts, markName } from '../../../src/lib/search-api';

describe('search highlights', () => {
  it('splits the backend’s marked text into plain and marked parts, never reading HTML', () => {
    expect(highlightParts('a \u0002quokka\u0003 <b>and</b> \u0002more\u0003')).toEqual([
      ['a ', false],
      ['quokka', true],
      [' <b>and</b> ', false],
      ['more', true],
    ]);
    expect(highlightParts('plain')).toEqual([['plain', false]]);
  });

  it('marks the words of a name that start with a word of the query', () => {
    expect(markName('Q3-report_final.pdf', 'rep fin')).toBe(
      'Q3-\u0002report\u0003_\u0002final\u0003.pdf',
    );
    expect(markName('Übersicht.txt', 'über')).toBe('\u0002Übersicht\u0003.txt');
    expect(markName('notes.md', '  ')).toBe('notes.md');
  });
});
