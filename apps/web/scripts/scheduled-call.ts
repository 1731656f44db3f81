/**
 * A call to one of Drive's functions with the service-role key, now and then every interval,
 * for a backend run by `pnpm start` (a hosted project schedules the same calls with its own
 * cron). A call still running when the next is due is not doubled; failures are logged and
 * the next interval tries again.
 */
export interface ScheduleOptions {
  /** Milliseconds between calls. */
  everyMs: number;
  log?: (message: string) => void;
}

export interface ScheduledCall<T> {
  /** The function's name (`/functions/v1/<name>`). */
  fn: string;
  /** The JSON body sent. */
  body: unknown;
  /** How the log names the call ("Trash purge"). */
  what: string;
  /** What to log of a successful answer (nothing: null). */
  report(answer: T | null): string | null;
}

/** Calls now, then every `everyMs`; returns a stop function. */
export function scheduleFunctionCall<T>(
  backendUrl: string,
  serviceRoleKey: string,
  call: ScheduledCall<T>,
  { everyMs, log = console.warn }: ScheduleOptions,
): () => void {
  let running = false;
  const once = async () => {
    if (running) return;
    running = true;
    try {
      const res = await fetch(`${backendUrl}/functions/v1/${call.fn}`, {
        method: 'POST',
        headers: {
          apikey: serviceRoleKey,
          authorization: `Bearer ${serviceRoleKey}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify(call.body),
      });
      const answer = (await res.json().catch(() => null)) as T | null;
      if (!res.ok) log(`${call.what} failed (${res.status}); it runs again later.`);
      else {
        const line = call.report(answer);
        if (line) log(line);
      }
    } catch (error) {
      log(
        `${call.what} failed (${error instanceof Error ? error.message : error}); it runs again later.`,
      );
    } finally {
      running = false;
    }
  };
  void once();
  const timer = setInterval(once, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
