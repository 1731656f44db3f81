/**
 * The Trash's 30-day purge on a schedule, for a backend run by `pnpm start` (a hosted project
 * schedules the same call with its own cron; see the README, "Trash"): `functions/trash` with
 * `{"action": "purge"}` and the service-role key deletes, for every user, the Trash entries
 * deleted more than 30 days ago — their stored objects, then their rows.
 */
const HOUR = 3600_000;

/** Calls the purge once now, then every `everyMs` (default 6 hours); returns a stop function. */
export function scheduleTrashPurge(
  backendUrl: string,
  serviceRoleKey: string,
  { everyMs = 6 * HOUR, log = console.warn }: { everyMs?: number; log?: (m: string) => void } = {},
): () => void {
  const purge = async () => {
    try {
      const res = await fetch(`${backendUrl}/functions/v1/trash`, {
        method: 'POST',
        headers: {
          apikey: serviceRoleKey,
          authorization: `Bearer ${serviceRoleKey}`,
          'content-type': 'application/json',
        },
        body: '{"action":"purge"}',
      });
      const body = (await res.json().catch(() => null)) as { deleted?: number } | null;
      if (!res.ok) log(`Trash purge failed (${res.status}); it runs again later.`);
      else if (body?.deleted)
        log(`Trash purge: ${body.deleted} entries older than 30 days deleted.`);
    } catch (error) {
      log(
        `Trash purge failed (${error instanceof Error ? error.message : error}); it runs again later.`,
      );
    }
  };
  void purge();
  const timer = setInterval(purge, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
