import { Hono } from 'hono';
import { pgError } from '../db/index';
import type { AppEnv, ServerContext, ServiceModule } from '../service-module';
import { authenticate } from './auth';
import type { Runtime } from './context';
import { errorResponse, fromPgError, RestError } from './errors';
import { execute } from './handlers/execute';
import { planRequest, readRequest } from './plan/index';
import { loadSchemaCache } from './schema/load';
import type { SchemaCache } from './schema/types';
import { loadSettings, settingsOf } from './settings';

/** One request: read at the edge, planned, then the plan executed (PostgREST's order). */
async function handle(
  rt: Runtime,
  raw: Request,
  gatewayToken: Parameters<typeof authenticate>[0],
  basePath: string,
): Promise<Response> {
  const req = await readRequest(rt, raw, gatewayToken, basePath);
  return execute(rt, req, planRequest(rt, req));
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
