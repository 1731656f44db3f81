import { describe, expect, it } from 'vitest';
import type { RestRequest, Runtime } from '../../../../src/rest/context';
import { RestError } from '../../../../src/rest/errors';
import { negotiate } from '../../../../src/rest/http/media';
import { parsePrefer } from '../../../../src/rest/http/prefer';
import { queryPairs } from '../../../../src/rest/parse/query';
import { planRequest } from '../../../../src/rest/plan/index';
import type { Column, SchemaCache, Table } from '../../../../src/rest/schema/types';

const column = (name: string, type = 'integer'): Column => ({
  name,
  type,
  baseType: type,
  udt: type,
  typtype: 'b',
  category: 'N',
  nullable: true,
  default: null,
  identity: '',
  generated: '',
  description: null,
  enumValues: null,
});

function table(name: string, columns: Column[], primaryKey: string[]): Table {
  return {
    schema: 'public',
    name,
    kind: 'r',
    insertable: true,
    updatable: true,
    deletable: false,
    description: null,
    columns,
    columnMap: new Map(columns.map((c) => [c.name, c])),
    primaryKey,
    uniques: [primaryKey],
  };
}

const todos = table('todos', [column('id'), column('title', 'text')], ['id']);
const cache: SchemaCache = {
  schemas: ['public'],
  tables: new Map([['public.todos', todos]]),
  foreignKeys: [],
  functions: new Map(),
  computed: [],
  enums: [],
  composites: [],
  resultRowTypes: [],
};
const rt = {
  config: { rest: { schemas: ['public'] } },
  cache: () => cache,
  settings: () => ({
    maxRows: 1000,
    aggregatesEnabled: false,
    planEnabled: false,
    txEnd: 'commit',
    extraSearchPath: [],
  }),
} as unknown as Runtime;

interface Options {
  prefer?: string;
  accept?: string;
  range?: string;
  body?: string;
}

/** A request as readRequest reads it at the edge. */
function request(method: string, target: string, o: Options = {}): RestRequest {
  const url = new URL(target, 'http://localhost');
  return {
    method,
    path: url.pathname,
    search: url.search,
    pairs: queryPairs(url.search),
    schema: 'public',
    profileHeader: false,
    prefs: parsePrefer(o.prefer ?? null),
    media: negotiate(o.accept ?? null, url.pathname === '/'),
    principal: { role: 'anon', claims: {}, authenticated: false },
    headers: {},
    rangeHeader: o.range ?? null,
    contentType: null,
    bodyText: o.body ?? '',
    bodyBytes: null,
  };
}

const plan = (method: string, target: string, o?: Options) =>
  planRequest(rt, request(method, target, o));

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    if (error instanceof RestError) return error.code;
    throw error;
  }
  throw new Error('no error');
}

describe('planRequest: the route', () => {
  it('plans the root, OPTIONS and the bad paths and methods', () => {
    expect(plan('GET', '/')).toEqual({ kind: 'openapi' });
    expect(plan('OPTIONS', '/')).toEqual({ kind: 'options', allow: 'OPTIONS,GET,HEAD' });
    expect(plan('OPTIONS', '/todos')).toEqual({
      kind: 'options',
      allow: 'OPTIONS,GET,HEAD,POST,PUT,PATCH',
    });
    expect(codeOf(() => plan('POST', '/'))).toBe('PGRST117');
    expect(codeOf(() => plan('PATCH', '/rpc/f'))).toBe('PGRST101');
    expect(codeOf(() => plan('GET', '/a/b'))).toBe('PGRST125');
  });

  it('finds the table before it parses the query string', () => {
    expect(codeOf(() => plan('GET', '/nope?select=(('))).toBe('PGRST205');
    expect(codeOf(() => plan('GET', '/todos?select=(('))).toBe('PGRST100');
  });
});

describe('planRequest: reads', () => {
  it('parses the query string, the range of a GET and the response shape once', () => {
    const p = plan('GET', '/todos?select=id&id=gt.1&order=id.desc&limit=2', {
      range: '5-9',
      accept: 'application/vnd.pgrst.object+json;nulls=stripped',
    });
    if (p.kind !== 'read') throw new Error(p.kind);
    expect(p.table).toBe(todos);
    expect(p.query.select).toEqual([
      {
        kind: 'column',
        field: { name: 'id', path: [] },
        alias: null,
        cast: null,
        aggregate: null,
        aggregateCast: null,
      },
    ]);
    const root = p.query.levels.get('');
    expect(root?.filters).toHaveLength(1);
    expect(root?.order?.[0]?.direction).toBe('desc');
    expect(root?.limit).toBe(2);
    expect(p.range).toEqual({ from: 5, to: 9 });
    expect(p.body).toEqual({ shape: 'object', stripNulls: true });
    expect(p.location).toBe('/todos?select=id&id=gt.1&order=id.desc&limit=2');
  });

  it('reads an open range, and no range on HEAD or in another form', () => {
    const range = (method: string, header: string) => {
      const p = plan(method, '/todos', { range: header });
      return p.kind === 'read' ? p.range : undefined;
    };
    expect(range('GET', '3-')).toEqual({ from: 3, to: Number.POSITIVE_INFINITY });
    expect(range('GET', '9-3')).toEqual({ from: 9, to: 3 });
    expect(range('HEAD', '0-1')).toBeNull();
    expect(range('GET', 'rows=0-1')).toBeNull();
  });

  it('shares the plan of identical requests', () => {
    expect(plan('GET', '/todos?id=eq.1')).toBe(plan('GET', '/todos?id=eq.1'));
    expect(plan('GET', '/todos?id=eq.1')).not.toBe(plan('HEAD', '/todos?id=eq.1'));
  });
});

describe('planRequest: writes', () => {
  it('checks the query string, then the body, then its columns', () => {
    expect(codeOf(() => plan('POST', '/todos?select=((', { body: '{' }))).toBe('PGRST100');
    expect(codeOf(() => plan('POST', '/todos', { body: '{' }))).toBe('PGRST102');
    expect(codeOf(() => plan('POST', '/todos', { body: '{"nope":1}' }))).toBe('PGRST204');
  });

  it('plans an insert with what it returns', () => {
    const p = plan('POST', '/todos', {
      body: '[{"id":1,"title":"a"}]',
      prefer: 'return=headers-only, resolution=ignore-duplicates',
      accept: 'text/csv',
    });
    if (p.kind !== 'insert') throw new Error(p.kind);
    expect(p.rows).toEqual([{ id: 1, title: 'a' }]);
    expect(p.columns).toEqual(['id', 'title']);
    expect(p.conflict).toEqual({ target: ['id'], merge: false });
    expect(p.appliedExtra).toEqual(['resolution=ignore-duplicates']);
    expect(p.returning).toBe('keys');
    expect(p.body).toEqual({ shape: 'csv', stripNulls: false });
  });

  it('turns the key filters of a PUT into its conflict target', () => {
    const p = plan('PUT', '/todos?id=eq.1', { body: '{"id":1,"title":"a"}' });
    if (p.kind !== 'insert') throw new Error(p.kind);
    expect(p.conflict).toEqual({ target: ['id'], merge: true });
    expect(p.query.levels.get('')?.filters).toEqual([]);
    expect(p.returning).toBe('none');
    expect(codeOf(() => plan('PUT', '/todos?id=eq.1&limit=1', { body: '{"id":1}' }))).toBe(
      'PGRST114',
    );
    expect(codeOf(() => plan('PUT', '/todos?title=eq.a', { body: '{"id":1}' }))).toBe('PGRST105');
    expect(codeOf(() => plan('PUT', '/todos?id=eq.2', { body: '{"id":1}' }))).toBe('PGRST115');
  });

  it('leaves the body of a PATCH to the statement (its filters are checked first)', () => {
    const p = plan('PATCH', '/todos?id=eq.1', { body: '{', prefer: 'return=representation' });
    expect(p).toMatchObject({ kind: 'update', returning: 'rows' });
    expect(plan('DELETE', '/todos', { prefer: 'return=headers-only' })).toMatchObject({
      kind: 'delete',
      returning: 'none',
    });
  });
});
