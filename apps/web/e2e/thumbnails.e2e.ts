import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from './axe';
import { makePng } from './png';
import { type Stack, signUpNewUser, startStack, watchErrors } from './stack';

const artifacts = fileURLToPath(new URL('../.artifacts/', import.meta.url));
const shots = `${artifacts}screenshots/`;
const inputs = `${artifacts}inputs/`;

const thumb = (page: Page, name: string) =>
  page.locator(`.rows li[data-name="${name}"] .thumb img`);
const natural = (page: Page, name: string) =>
  thumb(page, name).evaluate((img) => {
    const i = img as HTMLImageElement;
    return i.complete ? [i.naturalWidth, i.naturalHeight] : null;
  });
/** Where the page's thumbnail URLs point (path only). */
const thumbPath = async (page: Page, name: string) =>
  new URL((await thumb(page, name).getAttribute('src')) ?? 'http://x/').pathname;

describe('thumbnails in the list and the grid', () => {
  let stack: Stack;
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    mkdirSync(shots, { recursive: true });
    mkdirSync(inputs, { recursive: true });
    writeFileSync(`${inputs}photo.png`, makePng(800, 600));
    writeFileSync(`${inputs}plain.txt`, 'no picture here\n');
    stack = await startStack();
    page = await (await stack.newContext()).newPage();
    errors = watchErrors(page);
    await signUpNewUser(page, stack);
    await page
      .getByTestId('file-picker')
      .setInputFiles([`${inputs}photo.png`, `${inputs}plain.txt`]);
    for (const name of ['photo.png', 'plain.txt']) {
      await page
        .locator('.tray li.upload')
        .filter({ hasText: name })
        .locator('.upload-state[data-state="done"]')
        .waitFor({ timeout: 60_000 });
    }
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('shows a small thumbnail rendered by the backend for an image, the icon for the rest', async () => {
    await expect.poll(() => natural(page, 'photo.png'), { timeout: 15_000 }).toEqual([56, 56]);
    expect(await thumbPath(page, 'photo.png')).toMatch(
      /^\/storage\/v1\/render\/image\/sign\/files\//,
    );
    expect(await page.locator('.rows li[data-name="plain.txt"] .thumb').count()).toBe(0);
    expect(await page.locator('.rows li[data-name="plain.txt"] .icon-file').count()).toBe(1);
  });

  it('comes back from the browser on the next visit: same URL, no new signing, no new download', async () => {
    const before = await thumb(page, 'photo.png').getAttribute('src');
    // The kept URLs are written to storage a moment after they are made.
    await expect
      .poll(() =>
        page.evaluate(() => Object.keys(localStorage).some((k) => k.startsWith('drive:thumbs:'))),
      )
      .toBe(true);
    const signs: string[] = [];
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Network.enable');
    // A thumbnail answered by the browser's cache (memory or disk) is not downloaded again.
    const fromCache = new Set<string>();
    const fetched: Array<{ id: string; url: string; disk: boolean }> = [];
    cdp.on('Network.requestServedFromCache', (e) => fromCache.add(e.requestId));
    cdp.on('Network.responseReceived', (e) => {
      const r = e.response as { url: string; fromDiskCache?: boolean };
      if (r.url.includes('/render/image/'))
        fetched.push({ id: e.requestId, url: r.url, disk: Boolean(r.fromDiskCache) });
    });
    const onRequest = (r: { url(): string }) => {
      if (r.url().includes('/object/sign/')) signs.push(r.url());
    };
    page.on('request', onRequest);
    await page.goto(page.url());
    await expect.poll(() => natural(page, 'photo.png'), { timeout: 15_000 }).toEqual([56, 56]);
    expect(await thumb(page, 'photo.png').getAttribute('src')).toBe(before);
    expect(signs).toEqual([]);
    expect(fetched.length).toBeGreaterThan(0);
    expect(fetched.filter((f) => !f.disk && !fromCache.has(f.id))).toEqual([]);
    page.off('request', onRequest);
    await cdp.detach();
  });

  it('never holds the list back: rows show while thumbnails are still being asked for', async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route('**/storage/v1/object/sign/**', async (route) => {
      await held;
      await route.continue();
    });
    await page.evaluate(() => {
      for (const key of Object.keys(localStorage))
        if (key.startsWith('drive:thumbs:')) localStorage.removeItem(key);
    });
    await page.reload();
    await page.locator('.rows li[data-name="plain.txt"]').waitFor();
    await page.locator('.rows li[data-name="photo.png"] .thumb').waitFor();
    expect(await thumb(page, 'photo.png').count()).toBe(0);
    release();
    await expect.poll(() => natural(page, 'photo.png'), { timeout: 15_000 }).toEqual([56, 56]);
    // (While requests are routed, Chromium keeps nothing in its HTTP cache.)
    await page.unroute('**/storage/v1/object/sign/**');
  });

  it('shows a large thumbnail in the grid', async () => {
    await page.getByRole('button', { name: 'Grid' }).click();
    const big = page.locator('.tiles li[data-name="photo.png"] .thumb img');
    await expect
      .poll(
        () =>
          big.evaluate((img) => {
            const i = img as HTMLImageElement;
            return i.complete ? [i.naturalWidth, i.naturalHeight] : null;
          }),
        { timeout: 15_000 },
      )
      .toEqual([320, 320]);
    await page.screenshot({ path: `${shots}grid-thumbnails.png` });
    await expectAccessible(page, 'the grid with thumbnails');
    await page.getByRole('button', { name: 'List' }).click();
  });

  it('threw no uncaught error in the page', () => {
    expect(errors).toEqual([]);
  });
});
