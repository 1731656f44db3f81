import type { RestRequest, Runtime } from './context';
import type { Column, DbFunction, Table } from './schema/types';

/** OpenAPI (Swagger 2.0) type/format of a Postgres type, as the hosted REST service reports. */
function typeOf(pgType: string): { type: string; format: string; items?: { type: string } } {
  const base = pgType.replace(/\[\]$/, '');
  const isArray = pgType.endsWith('[]');
  const scalar = (() => {
    if (/^(smallint|integer|bigint)$/.test(base)) return 'integer';
    if (/^(numeric|real|double precision)/.test(base)) return 'number';
    if (base === 'boolean') return 'boolean';
    if (base === 'json' || base === 'jsonb') return 'object';
    return 'string';
  })();
  if (isArray) return { type: 'array', format: pgType, items: { type: scalar } };
  return { type: scalar === 'object' ? 'object' : scalar, format: pgType };
}

function property(c: Column, table: Table): Record<string, unknown> {
  const t = typeOf(c.type);
  const p: Record<string, unknown> = { ...t };
  if (c.type === 'json' || c.type === 'jsonb') delete p.type;
  if (c.default !== null) p.default = c.default;
  if (c.enumValues) p.enum = c.enumValues;
  const notes: string[] = [];
  if (c.description) notes.push(c.description);
  if (table.primaryKey.includes(c.name)) notes.push('Note:\nThis is a Primary Key.<pk/>');
  if (notes.length) p.description = notes.join('\n\n');
  return p;
}

function definition(table: Table) {
  return {
    type: 'object',
    ...(table.description ? { description: table.description } : {}),
    required: table.columns
      .filter((c) => !c.nullable && c.default === null && !c.identity && !c.generated)
      .map((c) => c.name),
    properties: Object.fromEntries(table.columns.map((c) => [c.name, property(c, table)])),
  };
}

const ref = (name: string) => ({ $ref: `#/parameters/${name}` });

function tablePaths(table: Table) {
  const body = {
    name: table.name,
    in: 'body',
    required: false,
    schema: { $ref: `#/definitions/${table.name}` },
  };
  const rowFilters = table.columns.map((c) => ({
    name: c.name,
    in: 'query',
    required: false,
    type: 'string',
    format: c.type,
  }));
  const tag = [table.name];
  const ops: Record<string, unknown> = {
    get: {
      tags: tag,
      ...(table.description ? { summary: table.description } : {}),
      parameters: [
        ...rowFilters,
        ref('select'),
        ref('order'),
        ref('range'),
        ref('rangeUnit'),
        ref('offset'),
        ref('limit'),
        ref('preferCount'),
      ],
      responses: {
        '200': {
          description: 'OK',
          schema: { type: 'array', items: { $ref: `#/definitions/${table.name}` } },
        },
        '206': { description: 'Partial Content' },
      },
    },
  };
  if (table.insertable)
    ops.post = {
      tags: tag,
      parameters: [body, ref('select'), ref('preferPost')],
      responses: { '201': { description: 'Created' } },
    };
  if (table.updatable)
    ops.patch = {
      tags: tag,
      parameters: [...rowFilters, body, ref('preferReturn')],
      responses: { '204': { description: 'No Content' } },
    };
  if (table.deletable)
    ops.delete = {
      tags: tag,
      parameters: [...rowFilters, ref('preferReturn')],
      responses: { '204': { description: 'No Content' } },
    };
  return ops;
}

function functionPaths(fn: DbFunction) {
  const args = {
    in: 'body',
    name: 'args',
    required: true,
    schema: {
      type: 'object',
      required: fn.args.filter((a) => !a.hasDefault && a.name).map((a) => a.name),
      properties: Object.fromEntries(
        fn.args.filter((a) => a.name).map((a) => [a.name, typeOf(a.type)]),
      ),
    },
  };
  const tags = [`(rpc) ${fn.name}`];
  const ops: Record<string, unknown> = {
    post: {
      tags,
      ...(fn.description ? { summary: fn.description } : {}),
      produces: ['application/json', 'application/vnd.pgrst.object+json'],
      parameters: [args, ref('preferParams')],
      responses: { '200': { description: 'OK' } },
    },
  };
  if (fn.volatility !== 'v') {
    ops.get = {
      tags,
      parameters: fn.args
        .filter((a) => a.name)
        .map((a) => ({ name: a.name, in: 'query', required: !a.hasDefault, ...typeOf(a.type) })),
      responses: { '200': { description: 'OK' } },
    };
  }
  return ops;
}

const PARAMETERS = {
  preferParams: {
    name: 'Prefer',
    description: 'Preference',
    required: false,
    in: 'header',
    type: 'string',
    enum: ['params=single-object'],
  },
  preferReturn: {
    name: 'Prefer',
    description: 'Preference',
    required: false,
    in: 'header',
    type: 'string',
    enum: ['return=representation', 'return=minimal', 'return=none'],
  },
  preferCount: {
    name: 'Prefer',
    description: 'Preference',
    required: false,
    in: 'header',
    type: 'string',
    enum: ['count=none'],
  },
  preferPost: {
    name: 'Prefer',
    description: 'Preference',
    required: false,
    in: 'header',
    type: 'string',
    enum: [
      'return=representation',
      'return=minimal',
      'return=none',
      'resolution=ignore-duplicates',
      'resolution=merge-duplicates',
    ],
  },
  select: {
    name: 'select',
    description: 'Filtering Columns',
    required: false,
    in: 'query',
    type: 'string',
  },
  on_conflict: {
    name: 'on_conflict',
    description: 'On Conflict',
    required: false,
    in: 'query',
    type: 'string',
  },
  order: { name: 'order', description: 'Ordering', required: false, in: 'query', type: 'string' },
  range: {
    name: 'Range',
    description: 'Limiting and Pagination',
    required: false,
    in: 'header',
    type: 'string',
  },
  rangeUnit: {
    name: 'Range-Unit',
    description: 'Limiting and Pagination',
    required: false,
    default: 'items',
    in: 'header',
    type: 'string',
  },
  offset: {
    name: 'offset',
    description: 'Limiting and Pagination',
    required: false,
    in: 'query',
    type: 'string',
  },
  limit: {
    name: 'limit',
    description: 'Limiting and Pagination',
    required: false,
    in: 'query',
    type: 'string',
  },
};

/** The OpenAPI document of the exposed schema (what API explorers and generators read). */
export function openApiDocument(rt: Runtime, schema: string): Record<string, unknown> {
  const cache = rt.cache();
  const tables = [...cache.tables.values()].filter((t) => t.schema === schema);
  const fns = [...cache.functions.values()].flat().filter((f) => f.schema === schema && f.callable);
  const url = new URL(rt.config.url || 'http://127.0.0.1');
  const paths: Record<string, unknown> = {
    '/': {
      get: {
        tags: ['Introspection'],
        summary: 'OpenAPI description (this document)',
        produces: ['application/openapi+json', 'application/json'],
        responses: { '200': { description: 'OK' } },
      },
    },
  };
  for (const t of tables) paths[`/${t.name}`] = tablePaths(t);
  for (const f of fns) paths[`/rpc/${f.name}`] = functionPaths(f);
  return {
    swagger: '2.0',
    info: { description: '', title: 'standard public schema', version: '13.0.0' },
    host: url.host,
    basePath: '/rest/v1',
    schemes: [url.protocol.replace(':', '')],
    consumes: [
      'application/json',
      'application/vnd.pgrst.object+json;nulls=stripped',
      'application/vnd.pgrst.object+json',
      'text/csv',
    ],
    produces: [
      'application/json',
      'application/vnd.pgrst.object+json;nulls=stripped',
      'application/vnd.pgrst.object+json',
      'text/csv',
    ],
    paths,
    definitions: Object.fromEntries(tables.map((t) => [t.name, definition(t)])),
    parameters: PARAMETERS,
    externalDocs: {
      description: 'PostgREST Documentation',
      url: 'https://postgrest.org/en/v13/references/api.html',
    },
  };
}

/** GET / HEAD on the root. */
export function openApiResponse(rt: Runtime, req: RestRequest): Response {
  const body = JSON.stringify(openApiDocument(rt, req.schema));
  return new Response(req.method === 'HEAD' ? null : body, {
    status: 200,
    headers: { 'content-type': 'application/openapi+json; charset=utf-8' },
  });
}
