/**
 * Offline and installable, as a new user meets it: the manifest and the service worker (the
 * app installs), then the browser's own offline mode (`context.setOffline`).
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from './axe';
import { type Stack, signUpNewUser, startStack, watchErrors } from './stack';

const shots = fileURLToPath(new URL('../.artifacts/screenshots/', import.meta.url));

/** Waits until the app-wide service worker controls the page (it registers after load). */
async function controlled(page: Page): Promise<string> {
  await page.evaluate(() => navigator.serviceWorker.ready);
  if (!(await page.evaluate(() => Boolean(navigator.serviceWorker.controller)))) {
    await page.reload();
  }
  return page.evaluate(() => navigator.serviceWorker.controller?.scriptURL ?? '');
}

describe('offline and installable', () => {
  let stack: Stack;
  let context: BrowserContext;
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    mkdirSync(shots, { recursive: true });
    stack = await startStack();
    context = await stack.newContext();
    page = await context.newPage();
    errors = watchErrors(page);
    await signUpNewUser(page, stack);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('is installable: a valid manifest with icons, and a service worker controlling the page', async () => {
    const href = await page.locator('link[rel="manifest"]').getAttribute('href');
    expect(href).toBe('/manifest.webmanifest');
    const manifest = await page.evaluate(async (url) => {
      const res = await fetch(url);
      return { type: res.headers.get('content-type'), body: await res.json() };
    }, href as string);
    expect(manifest.type).toContain('application/manifest+json');
    expect(manifest.body).toMatchObject({
      name: 'Drive',
      short_name: 'Drive',
      start_url: '/files',
      display: 'standalone',
    });
    const icons = manifest.body.icons as Array<{ src: string; sizes: string; type: string }>;
    expect(icons.map((i) => i.sizes)).toEqual(expect.arrayContaining(['192x192', '512x512']));
    for (const icon of icons) {
      const size = await page.evaluate(async (src) => {
        const bitmap = await createImageBitmap(await (await fetch(src)).blob());
        return `${bitmap.width}x${bitmap.height}`;
      }, icon.src);
      expect(size).toBe(icon.sizes);
    }

    expect(await controlled(page)).toBe(`${stack.site.url}/sw.js`);
    // Chromium's own verdict, as behind its Install button (a test browser's context is a
    // private one, where Chromium offers no install whatever the app).
    const cdp = await context.newCDPSession(page);
    const { installabilityErrors } = (await cdp.send('Page.getInstallabilityErrors')) as {
      installabilityErrors: Array<{ errorId: string }>;
    };
    expect(installabilityErrors.filter((e) => e.errorId !== 'in-incognito')).toEqual([]);
    await cdp.detach();
    // The download worker keeps its own scope beside it.
    const scopes = await page.evaluate(async () =>
      (await navigator.serviceWorker.getRegistrations()).map((r) => new URL(r.scope).pathname),
    );
    expect(scopes).toContain('/');
  });

  it('opens offline after one visit, still signed in', async () => {
    await context.setOffline(true);
    await page.reload();
    await page.getByRole('toolbar', { name: 'Folder actions' }).waitFor();
    expect(page.url()).toBe(`${stack.site.url}/files`);
    await expectAccessible(page, 'the app opened offline');
    await context.setOffline(false);
    expect(errors).toEqual([]);
  });
});
