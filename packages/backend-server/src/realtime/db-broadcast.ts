import type { RealtimeContext } from './context';

/** How long messages stay in realtime.messages, as on the hosted service (72 hours). */
export const MESSAGE_RETENTION_HOURS = 72;
const PRUNE_EVERY_MS = 60 * 60 * 1000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Broadcast from the database: messages written by `realtime.send()` (or
 * `realtime.broadcast_changes()`) are announced by a trigger, then read and fanned out to the
 * topic's channel (private ones only to members allowed to read it), with `meta.id`. Every
 * replica hears the notification, so each delivers to its own members only.
 * Messages older than {@link MESSAGE_RETENTION_HOURS} are deleted at start and every hour, so
 * an app that sends one per change does not grow the table for ever. Resolves to a function
 * that stops listening.
 */
export async function listenDatabaseBroadcasts(ctx: RealtimeContext): Promise<() => Promise<void>> {
  // Ids announced while a read is running wait here and are read together: one query for a
  // burst (a change fanned out to 50 people is 50 messages), in the order they were announced.
  let pending: string[] = [];
  let running = false;
  const deliver = async (ids: string[]) => {
    const { rows } = await ctx.db.query<{
      id: string;
      topic: string;
      event: string | null;
      payload: unknown;
      private: boolean | null;
    }>(
      `select m.id::text, m.topic, m.event, m.payload, m.private
         from unnest($1::uuid[]) with ordinality as announced(id, n)
         join realtime.messages m on m.id = announced.id
        order by announced.n`,
      [ids],
    );
    for (const message of rows) {
      ctx.hub.deliver(`realtime:${message.topic}`, message.private !== false, {
        type: 'broadcast',
        event: message.event,
        payload: message.payload,
        meta: { id: message.id },
      });
    }
  };
  const drain = async () => {
    running = true;
    while (pending.length > 0) {
      const ids = pending;
      pending = [];
      await deliver(ids).catch((error) => ctx.log(`database broadcast failed: ${String(error)}`));
    }
    running = false;
  };
  const prune = () =>
    ctx.db
      .query(
        `delete from realtime.messages
          where inserted_at < localtimestamp - make_interval(hours => $1)`,
        [MESSAGE_RETENTION_HOURS],
      )
      .catch((error) => ctx.log(`pruning realtime.messages failed: ${String(error)}`));
  await prune();
  const timer = setInterval(() => void prune(), PRUNE_EVERY_MS);
  timer.unref();
  const unlisten = await ctx.db.listen('realtime_messages', (id) => {
    // Anyone may notify this channel: what is not a message id must not spoil a batch.
    if (!UUID.test(id)) return;
    pending.push(id);
    if (!running) void drain();
  });
  return async () => {
    clearInterval(timer);
    await unlisten();
  };
}
