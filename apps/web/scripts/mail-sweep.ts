/**
 * Sharing's mails on a schedule, for a backend run by `pnpm start` (a hosted project
 * schedules the same call with its own cron; see the README, "Mail"): `functions/notify` with
 * the service-role key sends every unsent mail of `mail_outbox` — those whose immediate send
 * after a share failed, or that were queued while nobody called it. A mail that keeps failing
 * waits longer each time (see migrations/20261127001000_mail_delivery.sql), so a sweep every
 * minute is no hot loop.
 */
import { type ScheduleOptions, scheduleFunctionCall } from './scheduled-call';

const MINUTE = 60_000;

/** Sweeps once now, then every `everyMs` (default a minute); returns a stop function. */
export function scheduleMailSweep(
  backendUrl: string,
  serviceRoleKey: string,
  { everyMs = MINUTE, log }: Partial<ScheduleOptions> = {},
): () => void {
  return scheduleFunctionCall<{ sent?: number; failed?: number }>(
    backendUrl,
    serviceRoleKey,
    {
      fn: 'notify',
      body: {},
      what: 'Mail sweep',
      report: (answer) =>
        answer?.sent || answer?.failed
          ? `Mail sweep: ${answer.sent ?? 0} sent, ${answer.failed ?? 0} not sent (retried later).`
          : null,
    },
    { everyMs, log },
  );
}
