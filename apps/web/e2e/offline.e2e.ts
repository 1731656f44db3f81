/**
 * Offline and installable, as a new user meets it: the manifest and the service worker (the
 * app installs), then the browser's own offline mode (`context.setOffline`).
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from './axe';
import { controlled, namesIn, newFolder } from './drive-helpers';
import { makePng } from './png';
import { type Stack, signUpNewUser, startStack, watchErrors } from './stack';

const shots = fileURLToPath(new URL('../.artifacts/screenshots/', import.meta.url));

/** What this browser keeps for reading offline (IndexedDB `drive-offline`), as text. */
const kept = (page: Page) =>
  page.evaluate(
    () =>
      new Promise<string>((resolve) => {
        const open = indexedDB.open('drive-offline');
        open.onsuccess = () => {
          const all = open.result.transaction('listings').objectStore('listings').getAll();
          all.onsuccess = () => resolve(JSON.stringify(all.result));
          all.onerror = () => resolve('');
        };
        open.onerror = () => resolve('');
      }),
  );

/** The names in the kept list of sub-folders of `parentId` (null: none kept yet). */
const keptSubfolders = async (page: Page, parentId: string) => {
  const saved = JSON.parse((await kept(page)) || '[]') as Array<{
    state: { queries: Array<{ queryKey: unknown[]; state: { data: unknown } }> };
  }>;
  const list = saved[0]?.state.queries.find(
    (q) => q.queryKey[0] === 'folders' && q.queryKey[1] === parentId,
  );
  return list ? (list.state.data as Array<{ name: string }>).map((f) => f.name) : null;
};

const banner = (page: Page) =>
  page.getByRole('status').filter({ hasText: 'Offline. You see your folders and files' });

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

  it('shows the folders and files seen last offline, marked as offline', async () => {
    await newFolder(page, 'Photos');
    await newFolder(page, 'Taxes');
    await page.getByTestId('file-picker').setInputFiles([
      { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('Seen before the train.') },
      { name: 'wide.png', mimeType: 'image/png', buffer: makePng(40, 20) },
      { name: 'unopened.txt', mimeType: 'text/plain', buffer: Buffer.from('Never opened.') },
    ]);
    await page.locator('.rows li[data-name="unopened.txt"]').waitFor();
    await page.getByRole('button', { name: /^Photos, Folder/ }).click();
    await page.waitForURL(/\/files\/[0-9a-f-]{36}$/);
    const photosId = page.url().split('/').pop() ?? '';
    await newFolder(page, '2026');
    await page
      .getByRole('navigation', { name: 'Breadcrumbs' })
      .getByRole('link', { name: 'My files' })
      .click();
    await page.locator('.rows li[data-name="Taxes"]').waitFor();
    // Kept within a second of the answers (Photos' own list too, not only the list of all folders).
    await expect.poll(() => kept(page), { timeout: 10_000 }).toContain('unopened.txt');
    await expect.poll(() => keptSubfolders(page, photosId), { timeout: 10_000 }).toEqual(['2026']);

    await context.setOffline(true);
    await page.reload();
    await banner(page).waitFor();
    await expect
      .poll(() => namesIn(page), { timeout: 10_000 })
      .toEqual(['Photos', 'Taxes', 'notes.txt', 'unopened.txt', 'wide.png']);
    await page.screenshot({ path: `${shots}offline-files.png` });
    await expectAccessible(page, 'My files offline');
    await page.getByRole('button', { name: /^Photos, Folder/ }).click();
    await page.locator('.rows li[data-name="2026"]').waitFor();
    expect(await banner(page).isVisible()).toBe(true);
    await expectAccessible(page, 'a folder offline');

    await context.setOffline(false);
    await banner(page).waitFor({ state: 'detached' });
    await page
      .getByRole('navigation', { name: 'Breadcrumbs' })
      .getByRole('link', { name: 'My files' })
      .click();
    await page.locator('.rows li[data-name="Taxes"]').waitFor();
  });

  it('previews files opened recently offline (kept within a budget)', async () => {
    // Opened once online…
    await page.getByRole('button', { name: /^wide\.png, Image/ }).click();
    let dialog = page.getByRole('dialog', { name: 'wide.png' });
    const img = () => dialog.getByRole('img', { name: 'wide.png' });
    await expect.poll(() => img().evaluate((el) => (el as HTMLImageElement).naturalWidth)).toBe(40);
    await dialog.getByRole('button', { name: 'Close' }).click();
    await page.getByRole('button', { name: /^notes\.txt, / }).click();
    dialog = page.getByRole('dialog', { name: 'notes.txt' });
    await dialog.getByText('Seen before the train.').waitFor();
    await dialog.getByRole('button', { name: 'Close' }).click();
    await expect
      .poll(() =>
        page.evaluate(async () => (await (await caches.open('drive-previews')).keys()).length),
      )
      .toBe(3); // the two files and the cache's own index
    // Their signed URLs are kept with the listings (saved within a second).
    await expect
      .poll(async () => (await kept(page)).split('"preview-url"').length - 1, { timeout: 10_000 })
      .toBeGreaterThanOrEqual(2);

    // …then offline, after a reload.
    await context.setOffline(true);
    await page.reload();
    await banner(page).waitFor();
    await page.getByRole('button', { name: /^wide\.png, Image/ }).click();
    dialog = page.getByRole('dialog', { name: 'wide.png' });
    await expect.poll(() => img().evaluate((el) => (el as HTMLImageElement).naturalWidth)).toBe(40);
    await page.screenshot({ path: `${shots}offline-preview.png` });
    await expectAccessible(page, 'a preview offline');
    await dialog.getByRole('button', { name: 'Close' }).click();
    await page.getByRole('button', { name: /^notes\.txt, / }).click();
    dialog = page.getByRole('dialog', { name: 'notes.txt' });
    await dialog.getByText('Seen before the train.').waitFor();
    await dialog.getByRole('button', { name: 'Close' }).click();
    await context.setOffline(false);
    await banner(page).waitFor({ state: 'detached' });
  });

  it('forgets what it kept on sign-out', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/sign-in/);
    await expect.poll(() => kept(page)).toBe('[]');
    expect(await page.evaluate(() => caches.has('drive-previews'))).toBe(false);
  });
});
