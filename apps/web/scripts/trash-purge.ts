/**
 * The Trash's 30-day purge on a schedule, for a backend run by `pnpm start` (a hosted project
 * schedules the same call with its own cron; see the README, "Trash"): `functions/trash` with
 * `{"action": "purge"}` and the service-role key deletes, for every user, the Trash entries
 * deleted more than 30 days ago — their stored objects, then their rows.
 */
import { type ScheduleOptions, scheduleFunctionCall } from './scheduled-call';

const HOUR = 3600_000;

/** Calls the purge once now, then every `everyMs` (default 6 hours); returns a stop function. */
export function scheduleTrashPurge(
  backendUrl: string,
  serviceRoleKey: string,
  { everyMs = 6 * HOUR, log }: Partial<ScheduleOptions> = {},
): () => void {
  return scheduleFunctionCall<{ deleted?: number }>(
    backendUrl,
    serviceRoleKey,
    {
      fn: 'trash',
      body: { action: 'purge' },
      what: 'Trash purge',
      report: (answer) =>
        answer?.deleted
          ? `Trash purge: ${answer.deleted} entries older than 30 days deleted.`
          : null,
    },
    { everyMs, log },
  );
}
