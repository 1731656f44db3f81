/**
 * The console's Queues screen API (`/_console/api/queues`): pgmq's queues with their metrics,
 * a queue's (or its archive's) messages, and send, read, archive, delete, create, purge and
 * drop through pgmq's own functions, the queue's name always a parameter. Only a queue's
 * message list reads its table directly: its name comes from `pgmq.meta` and is quoted.
 */
import { type Context, Hono } from 'hono';
import type { Database } from '../db/index';
import { quoteQualified } from '../db/quote';
import type { AppEnv } from '../service-module';
import type {
  QueueMessage,
  QueueMessages,
  QueueSendResponse,
  QueueSummary,
  QueuesResponse,
} from './api-types';
import { badRequest, jsonBody, notFound, orPostgresError } from './http';

/** Timestamps as ISO 8601 texts, the same on both engines. */
const iso = (column: string) => `to_json(${column}) #>> '{}' as ${column}`;

const MESSAGE_COLUMNS = `msg_id::text as msg_id, read_ct, ${iso('enqueued_at')}, ${iso('vt')}, message::text as message`;

/** The messages with their JSON parsed (sent as text: the drivers differ on jsonb). */
const parsed = (rows: QueueMessage[]): QueueMessage[] =>
  rows.map((row) => ({ ...row, message: JSON.parse(row.message as string) as unknown }));

const QUEUES_SQL = /* sql */ `
  select m.queue_name::text as name, m.is_unlogged as unlogged, ${iso('created_at')},
         x.queue_length::float8 as length, x.oldest_msg_age_sec as "oldestAgeSec",
         x.newest_msg_age_sec as "newestAgeSec", x.total_messages::float8 as "totalMessages"
    from pgmq.meta m cross join lateral pgmq.metrics(m.queue_name) x
   order by m.queue_name`;

/** Messages a queue's page lists, and most read at once. */
const MAX_MESSAGES = 100;

/** A whole number in [min, max], `fallback` when absent; null when it is something else. */
function whole(value: unknown, fallback: number, min: number, max: number): number | null {
  if (value === undefined || value === null) return fallback;
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max
    ? value
    : null;
}

export function queueRoutes(db: Database): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const installed = async () =>
    (
      await db.query<{ installed: boolean }>(
        `select exists (select 1 from pg_extension where extname = 'pgmq') as installed`,
      )
    ).rows[0]?.installed === true;

  routes.get('/', async (c) => {
    if (!(await installed()))
      return c.json({ installed: false, queues: [] } satisfies QueuesResponse);
    const { rows } = await db.query<QueueSummary>(QUEUES_SQL);
    return c.json({ installed: true, queues: rows } satisfies QueuesResponse);
  });

  routes.post('/', async (c) => {
    const body = await jsonBody(c);
    if (typeof body?.name !== 'string' || body.name.trim() === '')
      return badRequest(c, 'Send {"name": "…"}.');
    if (!(await installed())) return notFound(c, 'pgmq is not installed');
    const name = body.name.trim();
    return orPostgresError(c, async () => {
      await db.query('select pgmq.create($1)', [name]);
      return c.json({ name: name.toLowerCase() }, 201);
    });
  });

  // Every route below is about one queue (`/:name` too): pgmq must be there, and the queue.
  routes.use('/:name/*', async (c, next) => {
    if (!(await installed())) return notFound(c, 'pgmq is not installed');
    const { rows } = await db.query('select 1 from pgmq.meta where queue_name = $1', [
      c.req.param('name'),
    ]);
    if (rows.length === 0) return notFound(c, `No queue "${c.req.param('name')}"`);
    return next();
  });

  routes.get('/:name/messages', async (c) => {
    const name = c.req.param('name');
    const archive = c.req.query('archive') === '1';
    const table = quoteQualified('pgmq', `${archive ? 'a' : 'q'}_${name}`);
    const columns = archive ? `${MESSAGE_COLUMNS}, ${iso('archived_at')}` : MESSAGE_COLUMNS;
    const order = archive ? 'archived_at desc, msg_id desc' : 'msg_id';
    const [list, count] = await Promise.all([
      db.query<QueueMessage>(`select ${columns} from ${table} order by ${order} limit $1`, [
        MAX_MESSAGES,
      ]),
      db.query<{ total: number }>(`select count(*)::float8 as total from ${table}`),
    ]);
    return c.json({
      messages: parsed(list.rows),
      total: count.rows[0]?.total ?? 0,
    } satisfies QueueMessages);
  });

  routes.post('/:name/send', async (c) => {
    const body = await jsonBody(c);
    if (!body || !('message' in body) || body.message === undefined)
      return badRequest(c, 'Send {"message": <JSON>, "delay": seconds}.');
    const delay = whole(body.delay, 0, 0, 2_147_483_647);
    if (delay === null) return badRequest(c, 'The delay is a whole number of seconds (0 or more).');
    return orPostgresError(c, async () => {
      const { rows } = await db.query<QueueSendResponse>(
        'select s::text as msg_id from pgmq.send($1, $2::text::jsonb, $3::integer) s',
        [c.req.param('name'), JSON.stringify(body.message), delay],
      );
      return c.json(rows[0] as QueueSendResponse);
    });
  });

  routes.post('/:name/read', async (c) => {
    const body = (await jsonBody(c)) ?? {};
    const vt = whole(body.vt, 30, 0, 2_147_483_647);
    const qty = whole(body.qty, 1, 1, MAX_MESSAGES);
    if (vt === null) return badRequest(c, 'The visibility timeout is whole seconds (0 or more).');
    if (qty === null) return badRequest(c, `Read 1 to ${MAX_MESSAGES} messages.`);
    return orPostgresError(c, async () => {
      const { rows } = await db.query<QueueMessage>(
        `select ${MESSAGE_COLUMNS} from pgmq.read($1, $2::integer, $3::integer)`,
        [c.req.param('name'), vt, qty],
      );
      return c.json(parsed(rows) satisfies QueueMessage[]);
    });
  });

  const onMessage = (fn: 'archive' | 'delete') => async (c: Context<AppEnv>) => {
    const id = c.req.param('id') ?? '';
    if (!/^\d{1,18}$/.test(id)) return badRequest(c, 'Not a message id.');
    return orPostgresError(c, async () => {
      const { rows } = await db.query<{ done: boolean }>(
        `select pgmq.${fn}($1, $2::bigint) as done`,
        [c.req.param('name') ?? '', id],
      );
      return rows[0]?.done ? c.body(null, 204) : notFound(c, `No message ${id}`);
    });
  };
  routes.post('/:name/messages/:id/archive', onMessage('archive'));
  routes.delete('/:name/messages/:id', onMessage('delete'));

  routes.post('/:name/purge', (c) =>
    orPostgresError(c, async () => {
      const { rows } = await db.query<{ deleted: number }>(
        'select pgmq.purge_queue($1)::float8 as deleted',
        [c.req.param('name')],
      );
      return c.json({ deleted: rows[0]?.deleted ?? 0 });
    }),
  );

  routes.delete('/:name', (c) =>
    orPostgresError(c, async () => {
      await db.query('select pgmq.drop_queue($1)', [c.req.param('name')]);
      return c.body(null, 204);
    }),
  );

  return routes;
}
