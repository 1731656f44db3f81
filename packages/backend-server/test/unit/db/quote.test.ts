import { describe, expect, it } from 'vitest';
import {
  arrayLiteral,
  quoteIdent,
  quoteJsonKey,
  quoteLiteral,
  quoteQualified,
} from '../../../src/db/quote';

describe('quoteIdent', () => {
  it('double-quotes a name and doubles its double quotes', () => {
    expect(quoteIdent('todos')).toBe('"todos"');
    expect(quoteIdent('My Table')).toBe('"My Table"');
    expect(quoteIdent('a"b')).toBe('"a""b"');
    expect(quoteIdent('"')).toBe('""""');
    expect(quoteIdent('')).toBe('""');
  });

  it('leaves single quotes, backslashes and other characters alone', () => {
    expect(quoteIdent("it's")).toBe('"it\'s"');
    expect(quoteIdent('a\\b')).toBe('"a\\b"');
    expect(quoteIdent('ünï.cødé')).toBe('"ünï.cødé"');
  });
});

describe('quoteQualified', () => {
  it('quotes both parts and joins them with a dot', () => {
    expect(quoteQualified('public', 'todos')).toBe('"public"."todos"');
    expect(quoteQualified('my"schema', 'a.b')).toBe('"my""schema"."a.b"');
  });
});

describe('quoteLiteral', () => {
  it('single-quotes a text and doubles its single quotes', () => {
    expect(quoteLiteral('hello')).toBe("'hello'");
    expect(quoteLiteral("it's")).toBe("'it''s'");
    expect(quoteLiteral("''")).toBe("''''''");
    expect(quoteLiteral('')).toBe("''");
  });

  it('keeps backslashes and double quotes as they are (standard_conforming_strings)', () => {
    expect(quoteLiteral('a\\b"c')).toBe("'a\\b\"c'");
  });

  it('keeps a NUL character, so that Postgres refuses it', () => {
    expect(quoteLiteral('a\0b')).toBe("'a\0b'");
  });

  it('works as a map callback', () => {
    expect(['a', "b'"].map(quoteLiteral).join(', ')).toBe("'a', 'b'''");
  });
});

describe('quoteJsonKey', () => {
  it('leaves an integer bare (an array index)', () => {
    expect(quoteJsonKey('0')).toBe('0');
    expect(quoteJsonKey('42')).toBe('42');
    expect(quoteJsonKey('-1')).toBe('-1');
  });

  it('quotes any other key as a literal', () => {
    expect(quoteJsonKey('name')).toBe("'name'");
    expect(quoteJsonKey("o'brien")).toBe("'o''brien'");
    expect(quoteJsonKey('1.5')).toBe("'1.5'");
    expect(quoteJsonKey('1a')).toBe("'1a'");
    expect(quoteJsonKey('')).toBe("''");
  });

  it('removes NUL characters', () => {
    expect(quoteJsonKey('a\0b')).toBe("'ab'");
    expect(quoteJsonKey("\0'")).toBe("''''");
  });
});

describe('arrayLiteral', () => {
  it('double-quotes every element and writes null as NULL', () => {
    expect(arrayLiteral([])).toBe('{}');
    expect(arrayLiteral(['a', 'b'])).toBe('{"a","b"}');
    expect(arrayLiteral(['a,b', null, ''])).toBe('{"a,b",NULL,""}');
    expect(arrayLiteral(['NULL'])).toBe('{"NULL"}');
  });

  it('backslash-escapes backslashes and double quotes', () => {
    expect(arrayLiteral(['say "hi"'])).toBe('{"say \\"hi\\""}');
    expect(arrayLiteral(['a\\b'])).toBe('{"a\\\\b"}');
    expect(arrayLiteral(['\\"'])).toBe('{"\\\\\\""}');
  });

  it('leaves single quotes and braces alone', () => {
    expect(arrayLiteral(["it's", '{x}'])).toBe('{"it\'s","{x}"}');
  });
});
