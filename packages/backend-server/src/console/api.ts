import { Hono } from 'hono';
import { devToolsFor } from '../logs/index';
import { outboxFor } from '../mail/index';
import type { AppEnv, ServerContext } from '../service-module';
import { smsOutboxFor } from '../sms/index';
import type {
  ApiError,
  AuthSessionRow,
  ConsoleSession,
  ConsoleSettings,
  Mail,
  RealtimeSnapshot,
  RlsResponse,
  RowsPage,
  Sms,
  SqlFailure,
  SqlResponse,
  TableList,
  TableResponse,
} from './api-types';
import { listTables, readRows, setRls, tableDetail } from './catalog';
import { cronRoutes } from './cron';
import { badRequest, jsonBody } from './http';
import { logRoutes } from './logs';
import { queueRoutes } from './queues';
import { s3KeyRoutes } from './s3-keys';
import { signingKeyRoutes } from './signing-keys';
import { runSql } from './sql';

/** Largest SQL script the console accepts (bytes). */
const MAX_SCRIPT = 1024 * 1024;

/** An SMTP URL without its password. */
function withoutPassword(url: string | null): string | null {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(invalid URL)';
  }
}

/** The settings in force that the console shows (no secrets but the project's keys). */
function settings(ctx: ServerContext): ConsoleSettings {
  const { config } = ctx;
  const { smtpUrl, ...auth } = config.auth;
  return {
    database: ctx.db.kind,
    dataDir: config.dataDir,
    storageDir: config.storageDir,
    migrationsDir: config.migrationsDir,
    seedFiles: config.seedFiles,
    functionsDir: config.functionsDir,
    auth: { ...auth, smtpUrl: withoutPassword(smtpUrl) },
    rest: config.rest,
    storage: config.storage,
    realtime: config.realtime,
    functions: config.functions,
    logCapacity: config.console.logCapacity,
  };
}

/**
 * The console API under `/_console/api` (behind the token guard): what the console needs
 * beyond the public APIs it calls with the service-role key.
 */
export function consoleApi(ctx: ServerContext): { routes: Hono<AppEnv>; close(): void } {
  const { config, db } = ctx;
  const api = new Hono<AppEnv>();
  const tools = devToolsFor(config);

  api.get('/session', (c) =>
    c.json({
      url: config.url,
      anonKey: config.anonKey,
      serviceRoleKey: config.serviceRoleKey,
      exposedSchemas: config.rest.schemas,
      settings: settings(ctx),
    } satisfies ConsoleSession),
  );

  api.post('/sql', async (c) => {
    const body = await jsonBody(c);
    const query = body?.query;
    if (typeof query !== 'string') return badRequest(c, 'Send {"query": "…"}.');
    if (Buffer.byteLength(query) > MAX_SCRIPT) return badRequest(c, 'The script is over 1 MB.');
    const outcome = await runSql(db, query);
    return outcome.ok
      ? c.json({ results: outcome.results, durationMs: outcome.durationMs } satisfies SqlResponse)
      : c.json({ error: outcome.error, durationMs: outcome.durationMs } satisfies SqlFailure, 400);
  });

  api.get('/tables', async (c) => c.json((await listTables(db)) satisfies TableList));

  api.get('/tables/:schema/:table', async (c) => {
    const detail = await tableDetail(db, c.req.param('schema'), c.req.param('table'));
    if (!detail) return c.json({ message: 'No such table' } satisfies ApiError, 404);
    return c.json({
      ...detail,
      exposed: config.rest.schemas.includes(detail.schema),
    } satisfies TableResponse);
  });

  api.post('/tables/:schema/:table/rls', async (c) => {
    const body = await jsonBody(c);
    if (typeof body?.enabled !== 'boolean') return badRequest(c, 'Send {"enabled": true|false}.');
    const done = await setRls(db, c.req.param('schema'), c.req.param('table'), body.enabled);
    return done
      ? c.json({ enabled: body.enabled } satisfies RlsResponse)
      : c.json({ message: 'No such table' } satisfies ApiError, 404);
  });

  api.get('/tables/:schema/:table/rows', async (c) => {
    const limit = Math.min(Math.max(Number(c.req.query('limit') ?? 50) || 50, 1), 1000);
    const offset = Math.max(Number(c.req.query('offset') ?? 0) || 0, 0);
    const [order, direction] = (c.req.query('order') ?? '').split('.');
    const page = await readRows(db, c.req.param('schema'), c.req.param('table'), {
      limit,
      offset,
      order: order || null,
      ascending: direction !== 'desc',
    });
    return page
      ? c.json(page satisfies RowsPage)
      : c.json({ message: 'No such table' } satisfies ApiError, 404);
  });

  const outbox = outboxFor(config, ctx.db, ctx.log);
  api.get('/mail', async (c) => c.json((await outbox.list()) satisfies Mail[]));
  api.delete('/mail', async (c) => {
    await outbox.clear();
    return c.body(null, 204);
  });

  const sms = smsOutboxFor(config, ctx.db, ctx.log);
  api.get('/sms', async (c) => c.json((await sms.list()) satisfies Sms[]));
  api.delete('/sms', async (c) => {
    await sms.clear();
    return c.body(null, 204);
  });

  api.get('/auth/users/:id/sessions', async (c) => {
    const id = c.req.param('id');
    if (!/^[0-9a-f-]{36}$/i.test(id)) return badRequest(c, 'Not a user id.');
    const { rows } = await db.query<AuthSessionRow>(
      `select id, created_at, updated_at, refreshed_at::text, user_agent, ip::text as ip,
              aal::text as aal, not_after
         from auth.sessions where user_id = $1 order by created_at desc`,
      [id],
    );
    return c.json(rows satisfies AuthSessionRow[]);
  });

  api.delete('/auth/sessions/:id', async (c) => {
    const id = c.req.param('id');
    if (!/^[0-9a-f-]{36}$/i.test(id)) return badRequest(c, 'Not a session id.');
    const { affectedRows } = await db.query('delete from auth.sessions where id = $1', [id]);
    return affectedRows > 0
      ? c.body(null, 204)
      : c.json({ message: 'No such session' } satisfies ApiError, 404);
  });

  api.get('/realtime', (c) =>
    c.json((tools.realtime?.() ?? { connections: [], channels: [] }) satisfies RealtimeSnapshot),
  );

  const logs = logRoutes(tools);
  api.route('/logs', logs.routes);
  api.route('/cron', cronRoutes(db));
  api.route('/queues', queueRoutes(db));
  api.route('/signing-keys', signingKeyRoutes(config.signingKeys));
  api.route('/s3-keys', s3KeyRoutes(db));

  api.notFound((c) => c.json({ message: 'No such console API' } satisfies ApiError, 404));
  return {
    routes: api,
    close() {
      logs.close();
    },
  };
}
