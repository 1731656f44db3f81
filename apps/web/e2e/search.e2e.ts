import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from './axe';
import { type Stack, signUpNewUser, startStack, watchErrors } from './stack';

const artifacts = fileURLToPath(new URL('../.artifacts/', import.meta.url));
const inputs = `${artifacts}inputs/search/`;
const shots = `${artifacts}screenshots/`;

describe('Search, as a new user', () => {
  let stack: Stack;
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    mkdirSync(inputs, { recursive: true });
    mkdirSync(shots, { recursive: true });
    writeFileSync(`${inputs}minutes.txt`, 'Meeting minutes.\nWe adopted a quokka as the mascot.\n');
    stack = await startStack();
    page = await (await stack.newContext()).newPage();
    errors = watchErrors(page);
    await signUpNewUser(page, stack);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('finds a word that is only inside a file, marks it, and opens the file', async () => {
    // Drive asks the backend to index what was uploaded, after the upload (never during it).
    const indexed = page.waitForResponse(
      (r) => r.url().includes('/functions/v1/search-index') && r.request().method() === 'POST',
      {
        timeout: 30_000,
      },
    );
    await page.getByTestId('file-picker').setInputFiles([`${inputs}minutes.txt`]);
    const done = () => page.locator('.tray li.upload .upload-state[data-state="done"]').count();
    await expect.poll(done, { timeout: 20_000 }).toBe(1);
    expect(await (await indexed).json()).toEqual({ indexed: 1, failed: 0 });

    // Typing in the folder's search box goes to Search, and results come as I type.
    const box = page.getByRole('searchbox', { name: /Search files and folders/ });
    // (Typed again if the folder's view was drawn anew under the keys, as it may be after uploads.)
    await expect
      .poll(
        async () => {
          if (!page.url().includes('/search')) await box.fill('quo');
          return page.url();
        },
        { timeout: 20_000 },
      )
      .toMatch(/\/search\?q=quo/);
    // The Search screen is a lazy chunk: type there once it is drawn (not in the folder's box).
    await page.getByRole('heading', { name: 'Search', exact: true }).waitFor();
    await expect.poll(() => box.inputValue()).toBe('quo');
    await box.pressSequentially('kka');
    await page.waitForURL(/\/search\?q=quokka/);
    const results = page.getByRole('list', { name: 'Search results for quokka' });
    // A hit is an item with a button to open it ("Searching…" is an item of the list too, while
    // the query's first page loads).
    const hits = results.getByRole('listitem').filter({ has: page.getByRole('button') });
    await expect.poll(() => hits.count()).toBe(1);
    expect(await results.getByRole('listitem').count()).toBe(1);
    const hit = hits.first();
    expect(await hit.locator('mark').allTextContents()).toEqual(['quokka']);
    expect(await hit.textContent()).toContain('We adopted a quokka as the mascot');
    await page.getByText('1 result for “quokka”').waitFor();
    await expectAccessible(page, 'the Search screen');
    await page.screenshot({ path: `${shots}search.png` });

    // A filter that leaves it out, then back.
    await page.getByRole('combobox', { name: 'Type' }).selectOption('pdf');
    await page.getByText('Nothing matches “quokka”.').waitFor();
    await page.getByRole('combobox', { name: 'Type' }).selectOption('');

    // Open it: the preview with its text.
    await hit.getByRole('button', { name: 'minutes.txt' }).click();
    const preview = page.getByRole('dialog', { name: 'minutes.txt' });
    await preview.waitFor();
    await expect.poll(() => preview.locator('pre').textContent()).toContain('quokka as the mascot');
    await expectAccessible(page, 'a file opened from Search');
    expect(errors).toEqual([]);
  });
});
