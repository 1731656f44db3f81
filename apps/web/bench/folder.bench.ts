/**
 * A folder of 10,000 files in the built app, in Chromium, against a real backend-server, in
 * the list view and then in the grid view (same page, same server, same run):
 * - time to first render: from navigation to the first file row on screen, for the
 *   10,000-file folder and, as the anchor, for an empty folder (same page, same session);
 * - scroll frame times: a requestAnimationFrame loop while the list scrolls 300 px per frame
 *   through the whole folder, against the anchor of the same loop on the idle page;
 * - DOM rows present while scrolling (virtualisation) and rows fetched by range;
 * - the renderer's main-thread CPU time per frame (a Chrome trace, separately from the frame
 *   times above so tracing does not slow them), idle page against scrolling: unlike frame
 *   times it hardly depends on what else the machine is running.
 */
import type { CDPSession, Page } from 'playwright-core';
import { signUpNewUser, startStack } from '../e2e/stack';

const FILES = 10_000;

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
const ms = (n: number) => `${n.toFixed(1)} ms`;

/**
 * Navigation → the first frame in which `selector` (CSS) matches, read in the page
 * (`performance.now()` counts from the navigation's start), checked on every animation frame.
 * Playwright's own `waitFor` polls at growing intervals (up to 500 ms apart), which rounded
 * times of more than half a second up to the next poll.
 */
async function firstRender(page: Page, url: string, selector: string): Promise<number> {
  await page.goto('about:blank');
  await page.goto(url, { waitUntil: 'commit' });
  const seen = await page.waitForFunction(
    (css) => (document.querySelector(css) ? performance.now() : false),
    selector,
    { polling: 'raf', timeout: 60_000 },
  );
  return (await seen.jsonValue()) as number;
}

// Runs in the page; a string, so the bundler's helpers (tsx adds `__name`) stay out of it.
const FRAME_LOOP = `(({ count, step }) => new Promise((resolve) => {
  const scroller = document.querySelector('[data-testid="list-scroll"]');
  const deltas = [];
  let maxRows = 0;
  let last = performance.now();
  const started = last;
  const tick = (now) => {
    deltas.push(now - last);
    last = now;
    if (scroller && step) scroller.scrollTop += step;
    maxRows = Math.max(maxRows, document.querySelectorAll('.rows li').length);
    // At most two minutes, so a stalled page ends the measurement instead of the bench.
    if (deltas.length < count && now - started < 120000) requestAnimationFrame(tick);
    else resolve({ deltas: deltas.slice(1), maxRows, top: scroller ? scroller.scrollTop : 0 });
  };
  requestAnimationFrame(tick);
}))`;

/** Frame deltas of a rAF loop of `count` frames; scrolls the list by `step` px per frame. */
async function frames(page: Page, count: number, step: number) {
  return (await page.evaluate(`${FRAME_LOOP}(${JSON.stringify({ count, step })})`)) as {
    deltas: number[];
    maxRows: number;
    top: number;
  };
}

function summary(deltas: number[]) {
  const sorted = [...deltas].sort((a, b) => a - b);
  return `p50 ${ms(pct(sorted, 50))}  p95 ${ms(pct(sorted, 95))}  p99 ${ms(pct(sorted, 99))}  max ${ms(sorted.at(-1) ?? 0)}  >20 ms: ${
    deltas.filter((d) => d > 20).length
  }  >50 ms: ${deltas.filter((d) => d > 50).length}/${deltas.length}`;
}

interface TraceEvent {
  name: string;
  ph: string;
  ts: number;
  dur?: number;
  tdur?: number;
  pid: number;
  tid: number;
  args?: { name?: string };
}

/**
 * Main-thread CPU of the page's renderer while `run` goes: the thread time (not wall time) of
 * its top-level tasks, from a Chrome trace. Returns ms per frame over `frameCount` frames.
 */
async function mainThreadCpu(cdp: CDPSession, frameCount: number, run: () => Promise<unknown>) {
  const events: TraceEvent[] = [];
  const collect = (e: { value: unknown[] }) => events.push(...(e.value as TraceEvent[]));
  cdp.on('Tracing.dataCollected', collect);
  const complete = new Promise<void>((resolve) => {
    cdp.once('Tracing.tracingComplete', () => resolve());
  });
  await cdp.send('Tracing.start', {
    transferMode: 'ReportEvents',
    traceConfig: { includedCategories: ['toplevel', 'devtools.timeline'] },
  });
  await run();
  await cdp.send('Tracing.end');
  await complete;
  cdp.off('Tracing.dataCollected', collect);
  // The renderer's main thread is the CrRendererMain with the most events (other renderers
  // — the browser's own — hardly do anything).
  const perThread = new Map<string, number>();
  for (const e of events)
    perThread.set(`${e.pid}:${e.tid}`, (perThread.get(`${e.pid}:${e.tid}`) ?? 0) + 1);
  const mains = events
    .filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain')
    .map((e) => `${e.pid}:${e.tid}`);
  const main = mains.sort((a, b) => (perThread.get(b) ?? 0) - (perThread.get(a) ?? 0))[0];
  const tasks = events
    .filter((e) => `${e.pid}:${e.tid}` === main && e.ph === 'X' && e.dur !== undefined)
    .sort((a, b) => a.ts - b.ts || (b.dur ?? 0) - (a.dur ?? 0));
  let cpu = 0;
  let end = Number.NEGATIVE_INFINITY;
  for (const e of tasks) {
    if (e.ts < end) continue; // nested in the task before
    cpu += (e.tdur ?? 0) / 1000;
    end = e.ts + (e.dur ?? 0);
  }
  return cpu / frameCount;
}

export default async function bench() {
  const stack = await startStack();
  try {
    const context = await stack.newContext();
    const page = await context.newPage();
    const user = await signUpNewUser(page, stack, 'Bench');
    const db = stack.server.db;
    const uid = (
      await db.query<{ id: string }>('select id from auth.users where email = $1', [user.email])
    ).rows[0]?.id;
    const t0 = Date.now();
    await db.query(`insert into public.folders (owner_id, name) values ($1, 'Empty')`, [uid]);
    // Straight into the table (the row trigger's per-row quota check would make seeding slow).
    await db.exec(
      `set session_replication_role = replica;
       insert into public.files (id, owner_id, name, size, mime_type, object_path, status)
       select g.id, '${uid}', g.name, (g.i % 1000) * 1024, 'text/plain', '${uid}/' || g.id || '/' || g.name, 'ready'
       from (select i, gen_random_uuid() as id, 'file-' || lpad(i::text, 5, '0') || '.txt' as name
             from generate_series(1, ${FILES}) i) g;
       set session_replication_role = origin;`,
    );
    console.log(`seeded ${FILES} files in ${Date.now() - t0} ms`);
    const empty = (
      await db.query<{ id: string }>("select id from public.folders where name = 'Empty'")
    ).rows[0]?.id;

    let ranges = 0;
    page.on('request', (r) => {
      if (r.url().includes('/rest/v1/files?') && r.url().includes('offset')) ranges += 1;
    });
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[1] ?? Number.NaN;
    const cdp = await page.context().newCDPSession(page);
    const TRACED = 300;

    /** The same measurements in the list view and in the grid view (Drive keeps the choice). */
    const measure = async (view: 'list' | 'grid') => {
      await page.evaluate((v) => localStorage.setItem('drive:view', v), view);
      // Warm the caches (HTTP, code) once so both measurements see the same conditions.
      await firstRender(page, `${stack.site.url}/files/${empty}`, '.empty');
      await firstRender(page, `${stack.site.url}/files`, '.rows li[data-kind="file"]');
      const anchorRenders: number[] = [];
      const bigRenders: number[] = [];
      for (let i = 0; i < 3; i += 1) {
        anchorRenders.push(await firstRender(page, `${stack.site.url}/files/${empty}`, '.empty'));
        bigRenders.push(
          await firstRender(page, `${stack.site.url}/files`, '.rows li[data-kind="file"]'),
        );
      }
      console.log(`\n${view} view`);
      console.log('time to first render (median of 3, navigation → first row on screen)');
      console.log(`  anchor: empty folder             ${ms(median(anchorRenders))}`);
      console.log(`  folder of ${FILES} files         ${ms(median(bigRenders))}`);

      const idle = await frames(page, 120, 0);
      console.log('scroll frame times (requestAnimationFrame deltas)');
      console.log(`  anchor: idle page                ${summary(idle.deltas)}`);
      const cpu: string[] = [];
      const idleCpu = await mainThreadCpu(cdp, TRACED, () => frames(page, TRACED, 0));
      cpu.push(`  anchor: idle page                ${ms(idleCpu)} per frame`);
      const height = await page
        .locator('[data-testid="list-scroll"]')
        .evaluate((el) => el.scrollHeight - el.clientHeight);
      for (const step of [60, 300]) {
        await page.locator('[data-testid="list-scroll"]').evaluate((el) => {
          el.scrollTop = 0;
        });
        ranges = 0;
        const count = Math.ceil(height / step);
        const scrolled = await frames(page, count, step);
        console.log(
          `  scrolling ${String(step).padStart(3)} px/frame          ${summary(scrolled.deltas)}`,
        );
        console.log(
          `    reached ${Math.round(scrolled.top)} of ${height} px; at most ${scrolled.maxRows} entries in the DOM; ${ranges} range requests`,
        );
        await page.locator('[data-testid="list-scroll"]').evaluate((el) => {
          el.scrollTop = 0;
        });
        const scrollCpu = await mainThreadCpu(cdp, TRACED, () => frames(page, TRACED, step));
        cpu.push(
          `  scrolling ${String(step).padStart(3)} px/frame          ${ms(scrollCpu)} per frame`,
        );
      }
      console.log(`renderer main-thread CPU (Chrome trace, ${TRACED} frames each)`);
      for (const line of cpu) console.log(line);
    };
    await measure('list');
    await measure('grid');
  } finally {
    await stack.stop();
  }
}
