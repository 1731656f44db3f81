/**
 * Sharing's mails on a schedule, for a backend run by `pnpm start` (a hosted project
 * schedules the same call with its own cron; see the README, "Mail"): `functions/notify` with
 * the service-role key sends every unsent mail of `mail_outbox` — those whose immediate send
 * after a share failed, or that were queued while nobody called it. A mail that keeps failing
 * waits longer each time (see migrations/20261127001000_mail_delivery.sql), so a sweep every
 * minute is no hot loop.
 */
const MINUTE = 60_000;

/** Sweeps once now, then every `everyMs` (default a minute); returns a stop function. */
export function scheduleMailSweep(
  backendUrl: string,
  serviceRoleKey: string,
  { everyMs = MINUTE, log = console.warn }: { everyMs?: number; log?: (m: string) => void } = {},
): () => void {
  let running = false;
  const sweep = async () => {
    if (running) return;
    running = true;
    try {
      const res = await fetch(`${backendUrl}/functions/v1/notify`, {
        method: 'POST',
        headers: {
          apikey: serviceRoleKey,
          authorization: `Bearer ${serviceRoleKey}`,
          'content-type': 'application/json',
        },
        body: '{}',
      });
      const body = (await res.json().catch(() => null)) as {
        sent?: number;
        failed?: number;
      } | null;
      if (!res.ok) log(`Mail sweep failed (${res.status}); it runs again later.`);
      else if (body?.sent || body?.failed) {
        log(`Mail sweep: ${body.sent ?? 0} sent, ${body.failed ?? 0} not sent (retried later).`);
      }
    } catch (error) {
      log(
        `Mail sweep failed (${error instanceof Error ? error.message : error}); it runs again later.`,
      );
    } finally {
      running = false;
    }
  };
  void sweep();
  const timer = setInterval(sweep, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
