import { Hono } from 'hono';
import { pgError } from '../db/index';
import type { AppEnv, ServerContext, ServiceModule } from '../service-module';
import { authenticate } from './auth';
import type { RestRequest, Runtime } from './context';
import { errorResponse, fromPgError, RestError } from './errors';
import { readTable } from './handlers/read';
import { callFunction } from './handlers/rpc';
import { insert, updateOrDelete } from './handlers/write';
import { negotiate } from './http/media';
import { type Preferences, parsePrefer } from './http/prefer';
import { openApiResponse } from './openapi';
import { queryPairs } from './parse/query';
import { closestMatch, NAME_MIN_SCORE } from './schema/fuzzy';
import { loadSchemaCache } from './schema/load';
import { qualified, type SchemaCache, type Table } from './schema/types';
import { loadSettings, type RestSettings, settingsOf } from './settings';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

function findTable(cache: SchemaCache, schema: string, name: string): Table {
  const table = cache.tables.get(qualified(schema, name));
  if (table) return table;
  const names = [...cache.tables.values()].filter((t) => t.schema === schema).map((t) => t.name);
  const guess = closestMatch(names, name, NAME_MIN_SCORE);
  throw new RestError(
    404,
    'PGRST205',
    `Could not find the table '${schema}.${name}' in the schema cache`,
    null,
    guess ? `Perhaps you meant the table '${schema}.${guess}'` : null,
  );
}

function allowFor(table: Table): string {
  const verbs = ['OPTIONS', 'GET', 'HEAD'];
  if (table.insertable) verbs.push('POST', 'PUT');
  if (table.updatable) verbs.push('PATCH');
  if (table.deletable) verbs.push('DELETE');
  return verbs.join(',');
}

function chooseSchema(rt: Runtime, method: string, headers: Headers) {
  const header =
    method === 'GET' || method === 'HEAD' || method === 'OPTIONS'
      ? headers.get('accept-profile')
      : headers.get('content-profile');
  const schemas = rt.config.rest.schemas;
  if (header === null) return { schema: schemas[0] ?? 'public', profileHeader: false };
  if (!schemas.includes(header)) {
    throw new RestError(
      406,
      'PGRST106',
      `Invalid schema: ${header}`,
      null,
      `Only the following schemas are exposed: ${schemas.join(', ')}`,
    );
  }
  return { schema: header, profileHeader: true };
}

/** The body as text, and as bytes when it is binary (a bytea rpc parameter). */
async function readBody(raw: Request, hasBody: boolean) {
  if (!hasBody) return { bodyText: '', bodyBytes: null };
  const type = raw.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/octet-stream') return { bodyText: await raw.text(), bodyBytes: null };
  return { bodyText: '', bodyBytes: new Uint8Array(await raw.arrayBuffer()) };
}

/** `Prefer: tx=` counts only where db-tx-end allows overriding (else it is ignored). */
function txAllowed(prefs: Preferences, settings: RestSettings): Preferences {
  if (!settings.txEnd.endsWith('-allow-override')) prefs.tx = null;
  return prefs;
}

async function handle(
  rt: Runtime,
  raw: Request,
  gatewayToken: Parameters<typeof authenticate>[0],
  basePath: string,
): Promise<Response> {
  const method = raw.method.toUpperCase();
  if (!METHODS.has(method))
    throw new RestError(405, 'PGRST117', `Unsupported HTTP method: ${method}`, null, null);
  const principal = await authenticate(gatewayToken, rt.config.signingKeys);
  const url = new URL(raw.url);
  const path = url.pathname.slice(basePath.length) || '/';
  const { schema, profileHeader } = chooseSchema(rt, method, raw.headers);
  const headers: Record<string, string> = {};
  raw.headers.forEach((v, k) => {
    if (k !== 'cookie') headers[k] = v;
  });
  const root = path === '/';
  const hasBody = method === 'POST' || method === 'PUT' || method === 'PATCH';
  const req: RestRequest = {
    method,
    path,
    search: url.search,
    pairs: queryPairs(url.search),
    schema,
    profileHeader,
    prefs: txAllowed(parsePrefer(raw.headers.get('prefer')), rt.settings()),
    media: negotiate(raw.headers.get('accept'), root, rt.settings().planEnabled),
    principal,
    headers,
    rangeHeader: raw.headers.get('range'),
    contentType: raw.headers.get('content-type'),
    ...(await readBody(raw, hasBody)),
  };
  if (root) {
    if (method === 'OPTIONS')
      return new Response(null, { status: 200, headers: { allow: 'OPTIONS,GET,HEAD' } });
    if (method !== 'GET' && method !== 'HEAD')
      throw new RestError(405, 'PGRST117', `Unsupported HTTP method: ${method}`, null, null);
    return openApiResponse(rt, req);
  }
  const segments = path.slice(1).split('/');
  let decoded: string[];
  try {
    decoded = segments.map((s) => decodeURIComponent(s));
  } catch {
    decoded = [];
  }
  const cache = rt.cache();
  if (decoded.length === 2 && decoded[0] === 'rpc' && decoded[1]) {
    const fnName = decoded[1];
    if (method === 'OPTIONS') {
      const fns = cache.functions.get(qualified(schema, fnName)) ?? [];
      const volatile = fns.some((f) => f.volatility === 'v');
      return new Response(null, {
        status: 200,
        headers: { allow: volatile ? 'OPTIONS,POST' : 'OPTIONS,GET,HEAD,POST' },
      });
    }
    if (!['GET', 'HEAD', 'POST'].includes(method))
      throw new RestError(
        405,
        'PGRST101',
        'Only GET, HEAD or POST methods are allowed for RPC',
        null,
        null,
      );
    return callFunction(rt, req, fnName);
  }
  if (decoded.length !== 1 || !decoded[0]) {
    throw new RestError(404, 'PGRST125', `Invalid path specified in request URL`, null, null);
  }
  const table = findTable(cache, schema, decoded[0]);
  switch (method) {
    case 'OPTIONS':
      return new Response(null, { status: 200, headers: { allow: allowFor(table) } });
    case 'GET':
    case 'HEAD':
      return readTable(rt, req, table);
    case 'POST':
    case 'PUT':
      return insert(rt, req, table);
    default:
      return updateOrDelete(rt, req, table);
  }
}

/**
 * Schema changes reload the schema cache by themselves, as on the hosted backend: an event
 * trigger notifies `pgrst` after DDL. Skipped where the role may not create event triggers.
 */
const DDL_WATCH_SQL = /* sql */ `
create or replace function extensions.pgrst_ddl_watch() returns event_trigger
  language plpgsql as $f$
begin
  perform pg_notify('pgrst', 'reload schema');
end
$f$;
do $$
begin
  drop event trigger if exists pgrst_ddl_watch;
  drop event trigger if exists pgrst_drop_watch;
  create event trigger pgrst_ddl_watch on ddl_command_end execute procedure extensions.pgrst_ddl_watch();
  create event trigger pgrst_drop_watch on sql_drop execute procedure extensions.pgrst_ddl_watch();
exception when insufficient_privilege then
  raise notice 'schema cache: no DDL watch (needs a superuser)';
end
$$;
`;

/** The PostgREST-compatible REST + rpc service under /rest/v1. */
export const restService: ServiceModule = {
  name: 'rest',
  basePath: '/rest/v1',
  platformSql: DDL_WATCH_SQL,
  keyAuth: true,
  async create(ctx: ServerContext) {
    const schemas = ctx.config.rest.schemas;
    // The first load runs in the background so that startup does not wait for it; requests
    // that arrive before it is done wait for it, and a failed load is retried by the next
    // request (503 PGRST002 meanwhile, as PostgREST answers without a schema cache).
    let cache: SchemaCache | null = null;
    const base = settingsOf(ctx.config.rest);
    let settings = base;
    let loading: Promise<SchemaCache> | null = null;
    // Loads may overlap (a NOTIFY during a load starts another); the newest one started wins,
    // whichever finishes last, so a slow load that began before a change cannot undo it.
    let started = 0;
    let applied = 0;
    // The schema cache and the in-database settings, read together.
    const load = async (): Promise<SchemaCache> => {
      const generation = ++started;
      const [loaded, current] = await Promise.all([
        loadSchemaCache(ctx.db, schemas),
        loadSettings(ctx.db, base),
      ]);
      if (generation > applied) {
        applied = generation;
        cache = loaded;
        settings = current;
      }
      return cache ?? loaded;
    };
    const ready = (): Promise<SchemaCache> => {
      if (cache) return Promise.resolve(cache);
      loading ??= load()
        .catch((error: unknown) => {
          ctx.log(`rest: schema cache load failed: ${String(error)}`);
          throw new RestError(
            503,
            'PGRST002',
            'Could not query the database for the schema cache. Retrying.',
          );
        })
        .finally(() => {
          loading = null;
        });
      return loading;
    };
    ready().catch(() => {});
    const reload = async () => {
      try {
        await load();
        ctx.log('rest: schema cache reloaded');
      } catch (error) {
        ctx.log(`rest: schema cache reload failed: ${String(error)}`);
      }
    };
    const unlisten = await ctx.db.listen('pgrst', (payload) => {
      if (payload === 'reload schema' || payload === 'reload config' || payload === '')
        void reload();
    });
    const rt: Runtime = {
      config: ctx.config,
      db: ctx.db,
      cache: () => {
        if (!cache) throw new Error('rest: schema cache used before it was loaded');
        return cache;
      },
      settings: () => settings,
    };
    const routes = new Hono<AppEnv>();
    routes.all('*', async (c) => {
      try {
        if (!cache) await ready();
        return await handle(rt, c.req.raw, c.get('gateway'), '/rest/v1');
      } catch (error) {
        if (error instanceof RestError) return errorResponse(error);
        const pg = pgError(error);
        if (pg) {
          const authed = await authenticate(c.get('gateway'), rt.config.signingKeys).then(
            (p) => p.authenticated,
            () => false,
          );
          return errorResponse(fromPgError(pg, authed));
        }
        throw error;
      }
    });
    return {
      routes,
      async close() {
        await unlisten();
      },
    };
  },
};
