import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatBytes } from '../src/format';
import { expectAccessible } from './axe';
import { type Stack, signUpNewUser, startStack, watchErrors } from './stack';

const artifacts = fileURLToPath(new URL('../.artifacts/', import.meta.url));
const inputs = `${artifacts}inputs/versions/`;
const FIRST = 'first version\n'.repeat(100);
const SECOND = 'second version, longer\n'.repeat(100);

const row = (page: Page, name: string) => page.locator(`.rows li[data-name="${name}"]`);
const names = (page: Page) =>
  page
    .locator('.rows li[data-name]')
    .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-name')));

describe('Versions, as a new user', () => {
  let stack: Stack;
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    mkdirSync(`${inputs}a`, { recursive: true });
    mkdirSync(`${inputs}b`, { recursive: true });
    writeFileSync(`${inputs}a/notes.txt`, FIRST);
    writeFileSync(`${inputs}b/notes.txt`, SECOND);
    stack = await startStack();
    page = await (await stack.newContext()).newPage();
    errors = watchErrors(page);
    await signUpNewUser(page, stack);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  async function pick(path: string) {
    await page.getByTestId('file-picker').setInputFiles([path]);
  }
  const done = () => page.locator('.tray li.upload .upload-state[data-state="done"]').count();

  it('uploads the same name again, Replace makes a new version, restores and downloads the first', async () => {
    await pick(`${inputs}a/notes.txt`);
    await row(page, 'notes.txt').waitFor();
    await expect.poll(done, { timeout: 20_000 }).toBe(1);

    // The same name again: Replace or Keep both.
    await pick(`${inputs}b/notes.txt`);
    const ask = page.getByRole('dialog', { name: '“notes.txt” already exists' });
    await ask.waitFor();
    await expectAccessible(page, 'the Replace / Keep both dialog');
    await ask.getByRole('button', { name: 'Replace' }).click();
    await expect.poll(done, { timeout: 20_000 }).toBe(2);
    // Still one file, now with the second content's size.
    expect(await names(page)).toEqual(['notes.txt']);
    await expect
      .poll(() => row(page, 'notes.txt').textContent())
      .toContain(formatBytes(SECOND.length));

    // Versions: two, the newest current.
    await page.getByRole('button', { name: 'Actions for notes.txt' }).click();
    await page.getByRole('menuitem', { name: 'Versions', exact: true }).click();
    const panel = page.getByRole('dialog', { name: 'Versions of “notes.txt”' });
    await panel.waitFor();
    const items = panel.getByRole('listitem');
    await expect.poll(() => items.count()).toBe(2);
    expect(await items.first().textContent()).toContain('Version 2 (current)');
    await expectAccessible(page, 'the Versions panel');

    // Restore the first: a third version, current, with the first content.
    await panel.getByRole('button', { name: 'Restore version 1' }).click();
    await expect.poll(() => items.count(), { timeout: 10_000 }).toBe(3);
    expect(await items.first().textContent()).toContain('Version 3 (current)');
    expect(await items.first().textContent()).toContain('restored by you');

    // Download the current one (the restored first): same bytes.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      panel.getByRole('button', { name: 'Download version 3' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('notes.txt');
    expect(readFileSync((await download.path()) as string, 'utf8')).toBe(FIRST);
    expect(errors).toEqual([]);
  });

  it('keeps the retention in Settings › Versions', async () => {
    await page.getByRole('button', { name: 'Close' }).last().click();
    await page.getByRole('link', { name: 'Settings' }).click();
    const section = page.getByRole('region', { name: 'Versions' });
    await section.getByLabel('Keep at most (versions per file)').fill('5');
    await section.getByRole('button', { name: 'Save' }).click();
    await section.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    await page.reload();
    await expect
      .poll(() => section.getByLabel('Keep at most (versions per file)').inputValue())
      .toBe('5');
    expect(await section.getByLabel('Keep versions for (days)').inputValue()).toBe('30');
    expect(errors).toEqual([]);
  });
});
