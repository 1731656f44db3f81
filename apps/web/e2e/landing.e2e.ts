import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './chromium';
import { serveStatic } from './static-server';

const dist = fileURLToPath(new URL('../dist', import.meta.url));

describe('the built web app in Chromium', () => {
  let browser: Browser;
  let site: Awaited<ReturnType<typeof serveStatic>>;

  beforeAll(async () => {
    site = await serveStatic(dist);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await site?.close();
  });

  it('renders the landing page with its limits', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${site.url}/`);
    await expect(page.title()).resolves.toBe('Drive');
    const heading = page.getByRole('heading', { level: 1 });
    expect(await heading.textContent()).toBe('Drive');
    const limits = await page.getByRole('list', { name: 'Limits' }).textContent();
    expect(limits).toContain('Storage per person: 10 GB');
    expect(limits).toContain('Largest file: 5 GB');
    expect(errors).toEqual([]);
  });
});
