import { describe, expect, it } from 'vitest';
import { exceptionText, parseFilters } from '../../../src/realtime/filters';
import { bindingId, legacyParams, parseBinding } from '../../../src/realtime/subscription';

describe('postgres_changes filters', () => {
  it('parses every operator, not., in-lists, quoted values and comma AND as hosted does', () => {
    expect(parseFilters('id=eq.5')).toEqual({ ok: true, filters: [['id', 'eq', '5', false]] });
    for (const op of ['neq', 'lt', 'lte', 'gt', 'gte', 'like', 'ilike', 'match', 'imatch']) {
      expect(parseFilters(`c=${op}.v`)).toEqual({ ok: true, filters: [['c', op, 'v', false]] });
    }
    expect(parseFilters('c=is.null,d=isdistinct.x')).toEqual({
      ok: true,
      filters: [
        ['c', 'is', 'null', false],
        ['d', 'isdistinct', 'x', false],
      ],
    });
    // `in` keeps the list as a Postgres array literal (quotes and escapes intact).
    expect(parseFilters('name=in.(a,"b,c",d)')).toEqual({
      ok: true,
      filters: [['name', 'in', '{a,"b,c",d}', false]],
    });
    expect(parseFilters('status=not.in.(draft,archived)')).toEqual({
      ok: true,
      filters: [['status', 'in', '{draft,archived}', true]],
    });
    expect(parseFilters('title=not.like.hey%')).toEqual({
      ok: true,
      filters: [['title', 'like', 'hey%', true]],
    });
    expect(parseFilters('id=gt.0, id=lt.100')).toEqual({
      ok: true,
      filters: [
        ['id', 'gt', '0', false],
        ['id', 'lt', '100', false],
      ],
    });
    expect(parseFilters('title=eq.a.b')).toEqual({
      ok: true,
      filters: [['title', 'eq', 'a.b', false]],
    });
    // Quoted scalar values (what realtime-js's builder sends for reserved characters).
    expect(parseFilters('t=eq."a,b",u=eq."say \\"hi\\""')).toEqual({
      ok: true,
      filters: [
        ['t', 'eq', 'a,b', false],
        ['u', 'eq', 'say "hi"', false],
      ],
    });
    // A quote inside a bare value is literal.
    expect(parseFilters('t=eq.a"b')).toEqual({ ok: true, filters: [['t', 'eq', 'a"b', false]] });
    expect(parseFilters('')).toEqual({ ok: true, filters: [] });
    expect(parseFilters('   ')).toEqual({ ok: true, filters: [] });
  });

  it('rejects what the hosted service rejects, with its message', () => {
    const error = (e: string) => ({ ok: false, error: `Error parsing \`filter\` params: ${e}` });
    expect(parseFilters('subject=foo.hey')).toEqual(error('["foo", "hey"]'));
    expect(parseFilters('subject=not.foo.hey')).toEqual(error('["foo", "hey"]'));
    expect(parseFilters('undefined')).toEqual(error('["undefined"]'));
    expect(parseFilters('id=eq')).toEqual(error('["eq"]'));
    expect(parseFilters('id=in.1,2')).toEqual(
      error('`in` filter value must be wrapped by parentheses'),
    );
    expect(parseFilters('id=eq.1,,id=eq.2')).toEqual(
      error('filter must not contain empty segments (check for extra commas)'),
    );
  });

  it('quotes database errors as the hosted service does', () => {
    expect(exceptionText({ code: 'P0001', message: 'invalid column for filter x' })).toBe(
      'ERROR P0001 (raise_exception) invalid column for filter x',
    );
  });
});

describe('postgres_changes bindings', () => {
  it('defaults schema/table like the hosted service and keeps a stable integer id', () => {
    const params = { event: 'INSERT', schema: 'public', table: 'todos', filter: 'id=eq.1' };
    const parsed = parseBinding(params);
    expect(parsed).toMatchObject({
      ok: true,
      binding: {
        event: 'INSERT',
        schema: 'public',
        table: 'todos',
        filters: [['id', 'eq', '1', false]],
      },
    });
    const id = bindingId(params);
    expect(Number.isInteger(id) && id >= 0 && id < 2 ** 27).toBe(true);
    // Same params in another key order → same id; other params → another id.
    expect(
      bindingId({ filter: 'id=eq.1', table: 'todos', schema: 'public', event: 'INSERT' }),
    ).toBe(id);
    expect(bindingId({ ...params, filter: 'id=eq.2' })).not.toBe(id);
    expect(parseBinding({ event: '*', table: 'x' })).toMatchObject({
      ok: true,
      binding: { schema: 'public', table: 'x', event: '*' },
    });
    expect(parseBinding({ event: '*', schema: 'app' })).toMatchObject({
      ok: true,
      binding: { schema: 'app', table: '*' },
    });
  });

  it('explains missing params and bad select lists', () => {
    expect(parseBinding({ event: '*' })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^No subscription params provided/),
    });
    expect(parseBinding({ event: '*', schema: '*', table: '*', select: ['a'] })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^Column selection is not supported for wildcard/),
    });
    expect(parseBinding({ event: '*', schema: 'public', table: 't', select: 'a' })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^Error parsing `select` params/),
    });
  });

  it('reads the legacy topic form', () => {
    expect(legacyParams('public:todos:id=eq.1')).toEqual({
      schema: 'public',
      table: 'todos',
      filter: 'id=eq.1',
    });
    expect(legacyParams('public')).toEqual({ schema: 'public' });
  });
});
