/**
 * The Logs screen under load (issue 19: "the log view stays smooth at 500 requests/s"), in
 * the built console in Chromium against a real backend-server:
 *  - frame times (requestAnimationFrame deltas) on the Logs screen while 500 requests a
 *    second reach the server, for 10 s, next to the anchor of the same loop on the same
 *    screen with no traffic, measured in the same run;
 *  - how many log rows reached the page, and how many are in the DOM (virtualised).
 */
import { loadavg } from 'node:os';
import { startConsoleStack } from '../e2e/stack';

const RATE = 500;
const SECONDS = 10;

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
const ms = (n: number) => `${n.toFixed(1)} ms`;

function summary(deltas: number[]) {
  const sorted = [...deltas].sort((a, b) => a - b);
  return `p50 ${ms(pct(sorted, 50))}  p95 ${ms(pct(sorted, 95))}  p99 ${ms(pct(sorted, 99))}  max ${ms(sorted.at(-1) ?? 0)}  >20 ms: ${
    deltas.filter((d) => d > 20).length
  }  >50 ms: ${deltas.filter((d) => d > 50).length}/${deltas.length}`;
}

// Runs in the page; a string, so the bundler's helpers stay out of it.
const FRAME_LOOP = `((durationMs) => new Promise((resolve) => {
  const deltas = [];
  let maxRows = 0;
  const start = performance.now();
  let last = start;
  const tick = (now) => {
    deltas.push(now - last);
    last = now;
    maxRows = Math.max(maxRows, document.querySelectorAll('[data-testid="log-scroll"] li').length);
    if (now - start < durationMs) requestAnimationFrame(tick);
    else resolve({ deltas: deltas.slice(1), maxRows });
  };
  requestAnimationFrame(tick);
}))`;

async function frames(page: import('playwright-core').Page, durationMs: number) {
  return (await page.evaluate(`${FRAME_LOOP}(${durationMs})`)) as {
    deltas: number[];
    maxRows: number;
  };
}

/** Sends `rate` requests a second for `seconds` (in slices of 10 ms), to cheap endpoints. */
async function traffic(url: string, key: string, rate: number, seconds: number) {
  let sent = 0;
  const perSlice = rate / 100;
  const started = performance.now();
  const inflight: Promise<unknown>[] = [];
  for (let slice = 0; slice < seconds * 100; slice += 1) {
    const due = started + slice * 10;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const n = Math.floor(perSlice * (slice + 1)) - Math.floor(perSlice * slice);
    for (let i = 0; i < n; i += 1) {
      sent += 1;
      const path = sent % 3 === 0 ? `/rest/v1/missing_${sent % 50}?select=*` : '/auth/v1/health';
      inflight.push(
        fetch(`${url}${path}`, { headers: { apikey: key } }).then((r) => r.arrayBuffer()),
      );
    }
    if (inflight.length > 2000) await Promise.all(inflight.splice(0));
  }
  await Promise.all(inflight);
  return { sent, seconds: (performance.now() - started) / 1000 };
}

export default async function bench() {
  const stack = await startConsoleStack({ auth: { rateLimits: false } });
  try {
    const page = stack.page;
    await stack.open('logs');
    await page.getByText(/^Live/).waitFor();
    const idle = await frames(page, 5000);
    const [loaded, sent] = await Promise.all([
      frames(page, SECONDS * 1000),
      traffic(stack.server.url, stack.server.anonKey, RATE, SECONDS),
    ]);
    const shown = await page.getByText(/entries shown/).textContent();
    console.log(
      `load average: ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    console.log(
      `traffic: ${sent.sent} requests in ${sent.seconds.toFixed(1)} s (${(sent.sent / sent.seconds).toFixed(0)} req/s)`,
    );
    console.log('Logs screen frame times (requestAnimationFrame deltas)');
    console.log(`  anchor: same screen, no traffic   ${summary(idle.deltas)}`);
    console.log(`  at ${RATE} requests/s, following   ${summary(loaded.deltas)}`);
    console.log(`  at most ${loaded.maxRows} log rows in the DOM; ${shown}`);
  } finally {
    await stack.stop();
  }
}
