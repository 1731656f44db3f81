/**
 * Search's indexing on a schedule, for a backend run by `pnpm start` (a hosted project
 * schedules the same call with its own cron; see the README, "Search"): `functions/search-index`
 * with the service-role key reads every file still waiting for its text — those whose call
 * right after the upload failed, or that failed and are due again (after a back-off: see
 * migrations/20261128001000_search_index.sql), so a sweep every minute is no hot loop.
 */
import { type ScheduleOptions, scheduleFunctionCall } from './scheduled-call';

const MINUTE = 60_000;

/** Sweeps once now, then every `everyMs` (default a minute); returns a stop function. */
export function scheduleSearchSweep(
  backendUrl: string,
  serviceRoleKey: string,
  { everyMs = MINUTE, log }: Partial<ScheduleOptions> = {},
): () => void {
  return scheduleFunctionCall<{ indexed?: number; failed?: number }>(
    backendUrl,
    serviceRoleKey,
    {
      fn: 'search-index',
      body: {},
      what: 'Search indexing',
      report: (answer) =>
        answer?.indexed || answer?.failed
          ? `Search indexing: ${answer.indexed ?? 0} files read, ${answer.failed ?? 0} not readable.`
          : null,
    },
    { everyMs, log },
  );
}
