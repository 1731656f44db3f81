/**
 * The offline shell's first paint: the built app in Chromium, signed in, after one visit (the
 * service worker installed and controlling), then opened again with the browser offline — the
 * page, its scripts and styles all come from the service worker. Per run: the navigation's
 * first contentful paint (`performance` paint entries) and the first frame with the folder's
 * toolbar (the signed-in shell) on screen. Anchors, same page and run: the same two online
 * (the page from the network, the scripts from the worker's precache).
 */
import type { Page } from 'playwright-core';
import { signUpNewUser, startStack } from '../e2e/stack';

const GOAL_MS = 300;
const RUNS = 9;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const ms = (n: number) => `${n.toFixed(0)} ms`;

/** First contentful paint and first frame with the toolbar, of a fresh navigation to `url`. */
async function open(page: Page, url: string): Promise<{ paint: number; shell: number }> {
  await page.goto('about:blank');
  await page.goto(url, { waitUntil: 'commit' });
  const shell = (await (
    await page.waitForFunction(
      () =>
        document.querySelector('[role="toolbar"][aria-label="Folder actions"]')
          ? performance.now()
          : false,
      undefined,
      { polling: 'raf', timeout: 60_000 },
    )
  ).jsonValue()) as number;
  const paint = await page.evaluate(
    () => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? Number.NaN,
  );
  return { paint, shell };
}

export default async function bench() {
  const stack = await startStack();
  try {
    const context = await stack.newContext();
    const page = await context.newPage();
    await signUpNewUser(page, stack);
    await page.evaluate(() => navigator.serviceWorker.ready);
    await page.reload();
    const controlled = await page.evaluate(() => Boolean(navigator.serviceWorker.controller));
    if (!controlled) throw new Error('the service worker does not control the page');
    const url = `${stack.site.url}/files`;
    await open(page, url); // warm-up

    const online: Array<{ paint: number; shell: number }> = [];
    const offline: Array<{ paint: number; shell: number }> = [];
    for (let i = 0; i < RUNS; i += 1) {
      await context.setOffline(false);
      online.push(await open(page, url));
      await context.setOffline(true);
      offline.push(await open(page, url));
    }
    await context.setOffline(false);

    const paint = median(offline.map((r) => r.paint));
    console.log(`median of ${RUNS}, navigation start → (Chromium, this machine)`);
    console.log('                               first paint   signed-in shell (toolbar)');
    console.log(
      `  anchor: online                ${ms(median(online.map((r) => r.paint))).padStart(8)}   ${ms(median(online.map((r) => r.shell))).padStart(8)}`,
    );
    console.log(
      `  offline, from the worker      ${ms(paint).padStart(8)}   ${ms(median(offline.map((r) => r.shell))).padStart(8)}`,
    );
    console.log(
      `  goal: offline first paint ≤ ${GOAL_MS} ms → ${paint <= GOAL_MS ? 'met' : 'NOT met'} (${ms(paint)})`,
    );
  } finally {
    await stack.stop();
  }
}
