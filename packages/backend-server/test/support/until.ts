/**
 * Polls `read` every 100 ms until it gives a truthy value (returned), or throws after `ms`:
 * for what background work (schedulers, workers) makes happen a moment later.
 */
export async function until<T>(
  read: () => Promise<T | null | undefined | false>,
  ms = 20_000,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (value) return value;
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 100));
  }
}
