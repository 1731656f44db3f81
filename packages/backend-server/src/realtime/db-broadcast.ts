import type { RealtimeContext } from './context';

/** How long messages stay in realtime.messages, as on the hosted service (72 hours). */
export const MESSAGE_RETENTION_HOURS = 72;
const PRUNE_EVERY_MS = 60 * 60 * 1000;

/**
 * Broadcast from the database: messages written by `realtime.send()` (or
 * `realtime.broadcast_changes()`) are announced by a trigger, then read and fanned out to the
 * topic's channel (private ones only to members allowed to read it), with `meta.id`.
 * Messages older than {@link MESSAGE_RETENTION_HOURS} are deleted at start and every hour, so
 * an app that sends one per change does not grow the table for ever. Resolves to a function
 * that stops listening.
 */
export async function listenDatabaseBroadcasts(ctx: RealtimeContext): Promise<() => Promise<void>> {
  let queue: Promise<void> = Promise.resolve();
  const deliver = async (id: string) => {
    const { rows } = await ctx.db.query<{
      topic: string;
      event: string | null;
      payload: unknown;
      private: boolean | null;
    }>('select topic, event, payload, private from realtime.messages where id = $1::uuid', [id]);
    const message = rows[0];
    if (!message) return;
    ctx.hub.broadcast(`realtime:${message.topic}`, message.private !== false, {
      type: 'broadcast',
      event: message.event,
      payload: message.payload,
      meta: { id },
    });
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
    queue = queue
      .then(() => deliver(id))
      .catch((error) => ctx.log(`database broadcast failed: ${String(error)}`));
  });
  return async () => {
    clearInterval(timer);
    await unlisten();
  };
}
