import type { RealtimeContext } from './context';

/**
 * Broadcast from the database: messages written by `realtime.send()` (or
 * `realtime.broadcast_changes()`) are announced by a trigger, then read and fanned out to the
 * topic's channel (private ones only to members allowed to read it), with `meta.id`.
 * Resolves to a function that stops listening.
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
  return ctx.db.listen('realtime_messages', (id) => {
    queue = queue
      .then(() => deliver(id))
      .catch((error) => ctx.log(`database broadcast failed: ${String(error)}`));
  });
}
