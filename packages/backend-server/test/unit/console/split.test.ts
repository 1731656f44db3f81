import { describe, expect, it } from 'vitest';
import { splitStatements } from '../../../src/console/split';

describe('splitStatements', () => {
  it('splits at top-level semicolons and keeps each offset', () => {
    const script = "select 1;\n  select ';' ;select 3";
    expect(splitStatements(script)).toEqual([
      { text: 'select 1', offset: 0 },
      { text: "select ';'", offset: 12 },
      { text: 'select 3', offset: 24 },
    ]);
  });

  it('skips semicolons in quotes, identifiers, dollar quotes and comments', () => {
    const script = [
      `select 'it''s; fine', E'a\\';b', "odd;name" from t;`,
      'create function f() returns int language sql as $body$ select 1; $body$;',
      'do $$ begin perform 1; end $$;',
      '-- a comment; with a semicolon',
      '/* block; /* nested; */ still; */ select 2;',
    ].join('\n');
    const parts = splitStatements(script).map((s) => s.text);
    expect(parts).toEqual([
      `select 'it''s; fine', E'a\\';b', "odd;name" from t`,
      'create function f() returns int language sql as $body$ select 1; $body$',
      'do $$ begin perform 1; end $$',
      'select 2',
    ]);
    const last = splitStatements(script).at(-1);
    expect(script.slice(last?.offset)).toMatch(/^select 2;/);
  });

  it('drops empty statements and comment-only scripts', () => {
    expect(splitStatements(';;  ; -- nothing\n/* at all */')).toEqual([]);
    expect(splitStatements('')).toEqual([]);
  });

  it('does not take $1 parameters or identifiers with $ for dollar quotes', () => {
    expect(splitStatements('select a$b$c, $1; select 2').map((s) => s.text)).toEqual([
      'select a$b$c, $1',
      'select 2',
    ]);
  });
});
