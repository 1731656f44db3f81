import { describe, expect, it } from 'vitest';
import {
  bindingId,
  legacyParams,
  parseBinding,
  parseFilters,
} from '../../../src/realtime/subscription';

describe('postgres_changes filters', () => {
  it('parses the classic operators, in-lists and comma AND', () => {
    expect(parseFilters('id=eq.5')).toEqual({ ok: true, filters: [['id', 'eq', '5']] });
    expect(parseFilters('name=in.(a,"b,c",d)')).toEqual({
      ok: true,
      filters: [['name', 'in', ['a', 'b,c', 'd']]],
    });
    expect(parseFilters('id=gt.0, id=lt.100')).toEqual({
      ok: true,
      filters: [
        ['id', 'gt', '0'],
        ['id', 'lt', '100'],
      ],
    });
    expect(parseFilters('title=eq.a.b')).toEqual({ ok: true, filters: [['title', 'eq', 'a.b']] });
    expect(parseFilters('')).toEqual({ ok: true, filters: [] });
  });

  it('rejects unknown operators and undefined values with the hosted message', () => {
    expect(parseFilters('subject=foo.hey')).toEqual({
      ok: false,
      error: 'Error parsing `filter` params: ["foo","hey"]',
    });
    expect(parseFilters('undefined')).toEqual({
      ok: false,
      error: 'Error parsing `filter` params: ["undefined"]',
    });
    expect(parseFilters('id=eq.undefined').ok).toBe(false);
  });
});

describe('postgres_changes bindings', () => {
  it('defaults schema/table like the hosted service and keeps a stable integer id', () => {
    const params = { event: 'INSERT', schema: 'public', table: 'todos', filter: 'id=eq.1' };
    const parsed = parseBinding(params);
    expect(parsed).toMatchObject({
      ok: true,
      binding: { event: 'INSERT', schema: 'public', table: 'todos', filters: [['id', 'eq', '1']] },
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
