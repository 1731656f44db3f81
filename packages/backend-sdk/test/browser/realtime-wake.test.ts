/**
 * A page's realtime socket after the device slept: the connection looks open to both ends
 * but carries nothing (a proxy freezes it). When the page wakes (`online`, or visible
 * again) the socket checks itself with a heartbeat at once, gives up the dead connection
 * when no reply comes within the timeout, reconnects and rejoins, and hears broadcasts
 * again. The heartbeat interval is ten minutes, so nothing but the wake can find the dead
 * connection while the test runs.
 */
import { type RunningServer, startServer } from '@app/backend-server';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freezingProxy, launchChromium, servePage } from './support';

let server: RunningServer;
let proxy: Awaited<ReturnType<typeof freezingProxy>>;
let site: Awaited<ReturnType<typeof servePage>>;
let browser: Browser;

beforeAll(async () => {
  server = await startServer({ port: 0, auth: { rateLimits: false } });
  proxy = await freezingProxy(server.url);
  site = await servePage('./realtime-page.ts');
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close().catch(() => {});
  await site?.close();
  await proxy?.close();
  await server?.stop();
});

type PageState = { statuses: string[]; pings: Array<{ n: number }> };

/** Broadcasts `ping {n}` on `room` through the server's REST API. */
const ping = async (n: number) => {
  const res = await fetch(`${server.url}/realtime/v1/api/broadcast`, {
    method: 'POST',
    headers: {
      apikey: server.serviceRoleKey,
      authorization: `Bearer ${server.serviceRoleKey}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify({ messages: [{ topic: 'room', event: 'ping', payload: { n } }] }),
  });
  expect(res.status).toBe(202);
};

const state = (page: Page) =>
  page.evaluate(() => {
    const { statuses, pings } = globalThis as unknown as PageState;
    return { statuses: [...statuses], pings: [...pings] };
  });
const statuses = async (page: Page) => (await state(page)).statuses;
const pings = async (page: Page) => (await state(page)).pings.map((p) => p.n);

for (const wake of ['online', 'visibilitychange'] as const) {
  it(`finds a dead connection on ${wake}, reconnects, rejoins and hears broadcasts again`, async () => {
    const page = await (await browser.newContext()).newPage();
    const query = new URLSearchParams({
      url: proxy.url,
      key: server.anonKey,
      timeout: '2000',
      heartbeat: String(10 * 60_000),
    });
    await page.goto(`${site.url}/?${query}`);
    await expect.poll(() => statuses(page), { timeout: 30_000 }).toEqual(['SUBSCRIBED']);
    await ping(1);
    await expect.poll(() => pings(page), { timeout: 30_000 }).toEqual([1]);

    proxy.freeze(); // the device sleeps; its socket still looks open
    await ping(2); // lost with the dead connection
    await page.evaluate((type) => {
      const target = type === 'online' ? window : document;
      target.dispatchEvent(new Event(type, { bubbles: true }));
    }, wake);

    await expect
      .poll(() => statuses(page), { timeout: 30_000 })
      .toEqual(['SUBSCRIBED', 'CHANNEL_ERROR', 'SUBSCRIBED']);
    await ping(3);
    await expect.poll(() => pings(page), { timeout: 30_000 }).toEqual([1, 3]);
    await page.context().close();
  }, 90_000);
}
