/**
 * Ten Chromium tabs of one origin share a session (localStorage, Web Locks, BroadcastChannel)
 * and refresh it as it expires, against a real server behind a real proxy that counts every
 * refresh request reaching the server. Short tokens (`auth.jwtExpiry`) make the rounds come
 * every 12 s. Checked: exactly one refresh per expiry across all tabs; a paused lock holder
 * is replaced by one successor, not by all tabs; a refresh request held in the network is
 * given up by its tab, the next tab refreshes, and the late request, once it reaches the
 * server, signs nobody out.
 */
import { type RunningServer, startServer } from '@app/backend-server';
import type { Browser, CDPSession, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchChromium, refreshProxy, servePage } from './support';

const TABS = 10;
/** Access tokens live 24 s: each tab schedules its refresh 12 s before expiry. */
const JWT_EXPIRY = 24;
const LOCK_TIMEOUT = 5000;
const REFRESH_TIMEOUT = 2000;

let server: RunningServer;
let proxy: Awaited<ReturnType<typeof refreshProxy>>;
let site: Awaited<ReturnType<typeof servePage>>;
let browser: Browser;
const pages: Page[] = [];
const email = 'tabs@example.com';
const password = 'correct horse battery';

beforeAll(async () => {
  server = await startServer({
    port: 0,
    auth: { jwtExpiry: JWT_EXPIRY, rateLimits: false },
  });
  await fetch(`${server.url}/auth/v1/admin/users`, {
    method: 'POST',
    headers: {
      apikey: server.serviceRoleKey,
      authorization: `Bearer ${server.serviceRoleKey}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify({ email, password, email_confirm: true }),
  });
  proxy = await refreshProxy(server.url);
  site = await servePage();
  browser = await launchChromium();
  const context = await browser.newContext();
  for (let tab = 0; tab < TABS; tab++) {
    const page = await context.newPage();
    const query = new URLSearchParams({
      tab: String(tab),
      url: proxy.url,
      key: server.anonKey,
      lockTimeout: String(LOCK_TIMEOUT),
      refreshTimeout: String(REFRESH_TIMEOUT),
    });
    await page.goto(`${site.url}/?${query}`);
    await page.waitForFunction(() => 'client' in globalThis);
    pages.push(page);
  }
}, 120_000);

afterAll(async () => {
  await browser?.close().catch(() => {});
  await site?.close();
  await proxy?.close();
  await server?.stop();
});

type PageState = {
  latest: { refresh_token: string } | null;
  events: Array<{ event: string }>;
};

/** The refresh token each of `tabs` holds now. */
const held = (tabs: Page[]) =>
  Promise.all(
    tabs.map((p) =>
      p.evaluate(() => (globalThis as unknown as PageState).latest?.refresh_token ?? null),
    ),
  );

/** Waits until every one of `tabs` holds the session of `token`. */
const converged = (token: string | null, tabs = pages) =>
  expect.poll(() => held(tabs), { timeout: 20_000, interval: 100 }).toEqual(tabs.map(() => token));

/** The auth events every tab has seen, in order. */
const events = () =>
  Promise.all(
    pages.map((p) =>
      p.evaluate(() => (globalThis as unknown as PageState).events.map((e) => e.event)),
    ),
  );

/** Pauses the first tab that calls fetch for a refresh (a DevTools fetch breakpoint). */
async function pauseNextRefresher(): Promise<{ tab: number; resume(): Promise<void> }> {
  const sessions: CDPSession[] = [];
  const paused = new Promise<number>((resolve) => {
    pages.forEach(async (page, tab) => {
      const cdp = await page.context().newCDPSession(page);
      sessions[tab] = cdp;
      cdp.on('Debugger.paused', () => resolve(tab));
      await cdp.send('Debugger.enable');
      await cdp.send('DOMDebugger.setXHRBreakpoint', { url: 'grant_type=refresh_token' });
    });
  });
  const tab = await paused;
  // The others wait for the lock (LOCK_TIMEOUT at least) before they could reach fetch.
  await Promise.all(
    sessions.map(async (cdp, i) => {
      if (i === tab) return;
      await cdp.send('DOMDebugger.removeXHRBreakpoint', { url: 'grant_type=refresh_token' });
      await cdp.detach();
    }),
  );
  const cdp = sessions[tab] as CDPSession;
  return {
    tab,
    async resume() {
      await cdp.send('DOMDebugger.removeXHRBreakpoint', { url: 'grant_type=refresh_token' });
      await cdp.send('Debugger.resume');
      await cdp.detach();
    },
  };
}

it('refreshes once per expiry across 10 tabs, through a paused holder and a held request', async () => {
  await pages[0]?.evaluate(
    ([e, p]) =>
      (
        globalThis as unknown as {
          client: { auth: { signInWithPassword(c: object): Promise<unknown> } };
        }
      ).client.auth.signInWithPassword({ email: e, password: p }),
    [email, password] as const,
  );
  const [signedIn] = await held([pages[0] as Page]);
  await converged(signedIn as string);
  let current = signedIn as string;
  let count = 0;

  /** Waits for the next refresh at the server; it must present the current token. */
  const nextRefresh = async () => {
    await proxy.until(++count);
    const record = proxy.refreshes[count - 1];
    expect(record).toMatchObject({ presented: current, status: 200 });
    return record as NonNullable<typeof record>;
  };

  // Three expiries: one refresh each, every tab on the new session.
  for (let round = 0; round < 3; round++) {
    const record = await nextRefresh();
    expect(record.returned).not.toBe(current);
    current = record.returned as string;
    await converged(current);
  }

  // The tab that takes the lock is paused before its request leaves: after LOCK_TIMEOUT one
  // other tab (not nine) steals the lock and refreshes; the rest adopt its session.
  const pause = pauseNextRefresher();
  const { tab, resume } = await pause;
  const others = pages.filter((_, i) => i !== tab);
  const successor = await nextRefresh();
  expect(successor.returned).not.toBe(current);
  const rotated = successor.returned as string;
  await converged(rotated, others);
  expect(proxy.refreshes.length).toBe(count);
  // Resumed, the paused tab sends its request with the spent token: the server answers with
  // the session its successor made (the token's child), and nobody is signed out.
  await resume();
  const late = await nextRefresh();
  expect(late.returned).toBe(rotated);
  current = rotated;
  await converged(current);

  // The next refresh is held in the network: its tab gives it up after REFRESH_TIMEOUT and
  // the next tab refreshes. The held request reaches the server afterwards, harmlessly.
  const holding = proxy.holdNextRefresh();
  const stuck = await holding;
  await stuck.abandoned;
  const next = await nextRefresh();
  expect(next.returned).not.toBe(current);
  current = next.returned as string;
  await converged(current);
  const arrived = await stuck.forward();
  count++;
  expect(arrived).toMatchObject({ status: 200, returned: current, abandoned: true });
  expect(proxy.refreshes.at(-1)).toBe(arrived);

  // The session lives on: the next expiry is one refresh again.
  const after = await nextRefresh();
  current = after.returned as string;
  await converged(current);

  const seen = await events();
  expect(seen.filter((e) => e.includes('SIGNED_OUT'))).toEqual([]);
  // Every request that reached the server had a reason: one per expiry (3 + 1 + 1 + 1), the
  // paused tab's late request and the held one; all answered 200.
  expect(proxy.refreshes.map((r) => r.status)).toEqual(Array(8).fill(200));
}, 240_000);
