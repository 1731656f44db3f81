import { describe, expect, it } from 'vitest';
import { RestError } from '../../../../src/rest/errors';
import { parseLogic, parseOperation, splitList } from '../../../../src/rest/parse/filter';
import { parseQuery, queryPairs } from '../../../../src/rest/parse/query';
import { parseSelect } from '../../../../src/rest/parse/select';

const fails = (fn: () => unknown, code: string) => {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(RestError);
    expect((e as RestError).code).toBe(code);
    return;
  }
  throw new Error('expected a RestError');
};

describe('select parser', () => {
  it('parses columns, aliases, casts, JSON paths and aggregates', () => {
    expect(parseSelect('id, label:name,pop:population::text,info->a->>b,n:data->0')).toEqual([
      {
        kind: 'column',
        field: { name: 'id', path: [] },
        alias: null,
        cast: null,
        aggregate: null,
        aggregateCast: null,
      },
      {
        kind: 'column',
        field: { name: 'name', path: [] },
        alias: 'label',
        cast: null,
        aggregate: null,
        aggregateCast: null,
      },
      {
        kind: 'column',
        field: { name: 'population', path: [] },
        alias: 'pop',
        cast: 'text',
        aggregate: null,
        aggregateCast: null,
      },
      {
        kind: 'column',
        field: {
          name: 'info',
          path: [
            { arrow: '->', key: 'a' },
            { arrow: '->>', key: 'b' },
          ],
        },
        alias: null,
        cast: null,
        aggregate: null,
        aggregateCast: null,
      },
      {
        kind: 'column',
        field: { name: 'data', path: [{ arrow: '->', key: '0' }] },
        alias: 'n',
        cast: null,
        aggregate: null,
        aggregateCast: null,
      },
    ]);
    expect(parseSelect('count(),total:amount.sum()::int,amount::numeric.avg()')).toEqual([
      { kind: 'count', alias: null, cast: null },
      {
        kind: 'column',
        field: { name: 'amount', path: [] },
        alias: 'total',
        cast: null,
        aggregate: 'sum',
        aggregateCast: 'int',
      },
      {
        kind: 'column',
        field: { name: 'amount', path: [] },
        alias: null,
        cast: 'numeric',
        aggregate: 'avg',
        aggregateCast: null,
      },
    ]);
  });

  it('parses embeds with hints, joins, spreads and quoted names', () => {
    expect(parseSelect('*,owner:users!owner_id!inner(id),...c!left(x),"my col",e()')).toEqual([
      { kind: 'star' },
      {
        kind: 'embed',
        name: 'users',
        alias: 'owner',
        hint: 'owner_id',
        join: 'inner',
        spread: false,
        items: [
          {
            kind: 'column',
            field: { name: 'id', path: [] },
            alias: null,
            cast: null,
            aggregate: null,
            aggregateCast: null,
          },
        ],
      },
      {
        kind: 'embed',
        name: 'c',
        alias: null,
        hint: null,
        join: 'left',
        spread: true,
        items: [
          {
            kind: 'column',
            field: { name: 'x', path: [] },
            alias: null,
            cast: null,
            aggregate: null,
            aggregateCast: null,
          },
        ],
      },
      {
        kind: 'column',
        field: { name: 'my col', path: [] },
        alias: null,
        cast: null,
        aggregate: null,
        aggregateCast: null,
      },
      { kind: 'embed', name: 'e', alias: null, hint: null, join: null, spread: false, items: [] },
    ]);
  });

  it('rejects malformed select lists and bad casts', () => {
    fails(() => parseSelect('a,(b'), 'PGRST100');
    fails(() => parseSelect('a(b'), 'PGRST100');
    fails(() => parseSelect('a::int;drop'), 'PGRST100');
    fails(() => parseSelect('a.nope()'), 'PGRST100');
    fails(() => parseSelect('"unterminated'), 'PGRST100');
  });
});

describe('filter parser', () => {
  it('parses operators, negation, quantifiers and FTS configs', () => {
    expect(parseOperation('eq.5', 'filter', false)).toEqual({
      negate: false,
      operation: { kind: 'simple', op: 'eq', quantifier: null, value: '5' },
    });
    expect(parseOperation('not.like(any).{a*,b*}', 'filter', false)).toEqual({
      negate: true,
      operation: { kind: 'simple', op: 'like', quantifier: 'any', value: '{a*,b*}' },
    });
    expect(parseOperation('in.(1,"a,b",  c )', 'filter', false).operation).toEqual({
      kind: 'in',
      values: ['1', 'a,b', 'c'],
    });
    expect(parseOperation('is.NULL', 'filter', false).operation).toEqual({
      kind: 'is',
      value: 'null',
    });
    expect(parseOperation('phfts(english).the cat', 'filter', false).operation).toEqual({
      kind: 'fts',
      op: 'phfts',
      config: 'english',
      value: 'the cat',
    });
    // Values keep dots and are not unquoted outside trees.
    expect(parseOperation('eq.a.b', 'filter', false).operation).toMatchObject({ value: 'a.b' });
  });

  it('rejects unknown operators and bad modifiers', () => {
    fails(() => parseOperation('foo.1', 'filter', false), 'PGRST100');
    fails(() => parseOperation('is.maybe', 'filter', false), 'PGRST100');
    fails(() => parseOperation('neq(any).{1}', 'filter', false), 'PGRST100');
    fails(() => parseOperation('fts(bad-config).x', 'filter', false), 'PGRST100');
    fails(() => parseOperation('eq', 'filter', false), 'PGRST100');
  });

  it('parses nested logic trees with quoted values and braces', () => {
    const tree = parseLogic(
      'or',
      false,
      '(a.eq.1,not.and(b.gte.2,c.in.(x,y)),d.eq."q,r",e.cs.{1,2})',
    );
    expect(tree.op).toBe('or');
    expect(tree.children).toHaveLength(4);
    expect(tree.children[1]).toMatchObject({ kind: 'logic', op: 'and', negate: true });
    expect(tree.children[2]).toMatchObject({ operation: { value: 'q,r' } });
    expect(tree.children[3]).toMatchObject({ operation: { op: 'cs', value: '{1,2}' } });
    fails(() => parseLogic('or', false, 'a.eq.1'), 'PGRST100');
  });

  it('splits lists honouring quotes and escapes', () => {
    expect(splitList('a,"b,\\"c",d')).toEqual(['a', 'b,"c', 'd']);
  });
});

describe('query string', () => {
  it('decodes + as space and sorts parameters into levels', () => {
    const parsed = parseQuery(
      queryPairs(
        '?select=id,rel(x)&name=eq.a+b&rel.x=gt.1&rel.order=x.desc.nullslast&rel.limit=2&not.or=(id.eq.1)&order=id&offset=3',
      ),
    );
    expect(parsed.levels.get('')?.filters[0]?.operation).toMatchObject({ value: 'a b' });
    expect(parsed.levels.get('')?.logic[0]).toMatchObject({ op: 'or', negate: true });
    expect(parsed.levels.get('')?.offset).toBe(3);
    expect(parsed.levels.get('rel')).toMatchObject({
      limit: 2,
      order: [{ relation: null, field: { name: 'x', path: [] }, direction: 'desc', nulls: 'last' }],
    });
    expect(parseQuery(queryPairs('order=rel(name).asc')).levels.get('')?.order).toEqual([
      { relation: 'rel', field: { name: 'name', path: [] }, direction: 'asc', nulls: null },
    ]);
  });

  it('keeps rpc arguments apart and rejects bad paging', () => {
    const parsed = parseQuery(queryPairs('a=1&b=eq.2&c=eq'), true);
    expect(parsed.rawArgs).toEqual([
      ['a', '1'],
      ['c', 'eq'],
    ]);
    expect(parsed.levels.get('')?.filters.map((f) => f.field.name)).toEqual(['b']);
    fails(() => parseQuery(queryPairs('a=1')), 'PGRST100');
    fails(() => parseQuery(queryPairs('limit=abc')), 'PGRST100');
    fails(() => parseQuery(queryPairs('limit=-1')), 'PGRST103');
    fails(() => queryPairs('a=%E0%A4%A'), 'PGRST100');
    fails(() => parseQuery(queryPairs('order=id.sideways')), 'PGRST100');
  });
});
