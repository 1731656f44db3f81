import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  accessibilityViolations,
  type ConsoleStack,
  startConsoleStack,
  watchErrors,
} from './stack';

let stack: ConsoleStack;
let errors: string[];
const functions = mkdtempSync(join(tmpdir(), 'console-functions-'));
mkdirSync(join(functions, 'hello'));
writeFileSync(
  join(functions, 'hello', 'index.ts'),
  `Deno.serve(() => { console.log('hello from the function'); return new Response('hi'); });\n`,
);

beforeAll(async () => {
  stack = await startConsoleStack({ functionsDir: functions, functions: { verifyJwt: false } });
  errors = watchErrors(stack.page);
});
afterAll(async () => {
  await stack?.stop();
  rmSync(functions, { recursive: true, force: true });
});

describe('console: logs', () => {
  it('shows requests live with status, duration, role and user; function output; realtime', async () => {
    const page = stack.page;
    await stack.open('logs');
    await page.getByText(/^Live/).waitFor();
    const { url, anonKey, serviceRoleKey } = stack.server;
    await fetch(`${url}/rest/v1/missing_table?select=*`, { headers: { apikey: anonKey } });
    await fetch(`${url}/auth/v1/health`, { headers: { apikey: serviceRoleKey } });
    await fetch(`${url}/functions/v1/hello`);
    const log = page.getByRole('log', { name: 'Live log' });
    const row404 = log.locator('li', { hasText: 'GET /rest/v1/missing_table' });
    await row404.waitFor();
    expect(await row404.textContent()).toMatch(/404.*anon/);
    await log.locator('li', { hasText: 'GET /auth/v1/health' }).getByText('service_role').waitFor();
    await log.getByText('hello: hello from the function').waitFor();
    // A realtime socket from the page itself shows up as a connection.
    await page.evaluate(
      ([u, k]) => {
        new WebSocket(`${u.replace('http', 'ws')}/realtime/v1/websocket?apikey=${k}&vsn=1.0.0`);
      },
      [url, anonKey] as const,
    );
    await log.getByText(/socket \w+ connected/).waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);
  });

  it('filters by status class, method, kind and text', async () => {
    const page = stack.page;
    const log = page.getByRole('log', { name: 'Live log' });
    await page.getByLabel('Status').selectOption('4xx');
    await expect
      .poll(() => log.locator('li').allTextContents())
      .toContainEqual(expect.stringContaining('/rest/v1/missing_table'));
    for (const status of await log.locator('li span:nth-child(2)').allTextContents()) {
      expect(status).toMatch(/^4\d\d$/);
    }
    await page.getByLabel('Status').selectOption('');
    await page.getByLabel('Kind').selectOption('function');
    await expect
      .poll(() => log.locator('li').allTextContents())
      .toEqual([expect.stringContaining('hello from the function')]);
    await page.getByLabel('Kind').selectOption('');
    await page.getByLabel('Contains').fill('health');
    await expect.poll(() => log.locator('li').count()).toBe(1);
    await page.getByLabel('Contains').fill('');
    await page.getByLabel('Method').selectOption('POST');
    await expect.poll(() => log.locator('li').count()).toBe(0);
    expect(errors).toEqual([]);
  });

  it('keeps only the newest entries in view and keeps up with a burst', async () => {
    const page = stack.page;
    await page.getByLabel('Method').selectOption('');
    const { url, anonKey } = stack.server;
    await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        fetch(`${url}/rest/v1/burst_${i}?select=*`, { headers: { apikey: anonKey } }),
      ),
    );
    const log = page.getByRole('log', { name: 'Live log' });
    await page.getByText(/ 30[0-9] of 30[0-9] entries shown/).waitFor();
    // Virtualised: only the rows in view (and a few around) are in the page.
    expect(await log.locator('li').count()).toBeLessThan(80);
    // Following the newest: the last burst request is on screen.
    await log
      .locator('li', { hasText: /burst_\d+/ })
      .last()
      .waitFor();
  });
});
