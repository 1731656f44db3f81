import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatBytes } from '../src/format';
import { loadLocale } from '../src/i18n';
import { expectAccessible } from './axe';
import { namesIn } from './drive-helpers';
import { type Stack, signUpNewUser, startStack, watchErrors } from './stack';
import { patchOffsets, recordsIn, throttle, tray, upload } from './upload-helpers';

const artifacts = fileURLToPath(new URL('../.artifacts/', import.meta.url));
const inputs = `${artifacts}inputs/versions/`;
const FIRST = 'first version\n'.repeat(100);
const SECOND = 'second version, longer\n'.repeat(100);
const MB = 1024 * 1024;

const row = (page: Page, name: string) => page.locator(`.rows li[data-name="${name}"]`);

describe('Versions, as a new user', () => {
  let stack: Stack;
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    mkdirSync(`${inputs}a`, { recursive: true });
    mkdirSync(`${inputs}b`, { recursive: true });
    writeFileSync(`${inputs}a/notes.txt`, FIRST);
    writeFileSync(`${inputs}b/notes.txt`, SECOND);
    writeFileSync(`${inputs}a/big.bin`, Buffer.alloc(2 * MB, 1));
    writeFileSync(`${inputs}b/big.bin`, Buffer.alloc(24 * MB, 2));
    await loadLocale('en'); // formatBytes here, as the page writes it in English
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
    expect(await namesIn(page)).toEqual(['notes.txt']);
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

  it('resumes a Replace cut by a reload from the server’s offset, still as a new version', async () => {
    await page.getByRole('button', { name: 'Close' }).last().click();
    await pick(`${inputs}a/big.bin`);
    await row(page, 'big.bin').waitFor({ timeout: 20_000 });
    await upload(page, 'big.bin').locator('.upload-state[data-state="done"]').waitFor({
      timeout: 20_000,
    });
    const cdp = await page.context().newCDPSession(page);
    await throttle(cdp, 2 * MB);
    await pick(`${inputs}b/big.bin`);
    const ask = page.getByRole('dialog', { name: '“big.bin” already exists' });
    await ask.getByRole('button', { name: 'Replace' }).click();
    // The tray lists the first upload (done) above the replacement.
    const replacing = upload(page, 'big.bin').last().locator('.pct');
    const percent = async () => Number.parseInt((await replacing.textContent()) ?? '0', 10);
    await expect.poll(percent, { timeout: 30_000 }).toBeGreaterThan(20);
    // This browser remembers the replacement (and its tus URL) before the reload.
    await expect.poll(() => recordsIn(page), { timeout: 15_000 }).toEqual(['big.bin']);
    await page.reload();
    await page.getByRole('toolbar', { name: 'Folder actions' }).waitFor();
    await throttle(cdp, -1);

    const item = upload(page, 'big.bin');
    await item.locator('.upload-state', { hasText: 'Incomplete' }).waitFor();
    expect(await tray(page).getByRole('status').textContent()).toBe('1 incomplete');
    // Readers still get the first version.
    await expect.poll(() => row(page, 'big.bin').textContent()).toContain(formatBytes(2 * MB));
    const offsets = patchOffsets(page);
    const chooser = page.waitForEvent('filechooser');
    await item.getByRole('button', { name: 'Resume big.bin' }).click();
    await (await chooser).setFiles(`${inputs}b/big.bin`);
    await item.locator('.upload-state[data-state="done"]').waitFor({ timeout: 60_000 });
    expect(offsets[0]).toBeGreaterThan(0);
    expect(await recordsIn(page)).toEqual([]);
    const versions = await stack.server.db.query<{ size: string; status: string }>(
      `select v.size::text, v.status from public.file_versions v
         join public.files f on f.id = v.file_id where f.name = 'big.bin' order by v.created_at`,
    );
    expect(versions.rows).toEqual([
      { size: String(2 * MB), status: 'ready' },
      { size: String(24 * MB), status: 'ready' },
    ]);
    await expect.poll(() => row(page, 'big.bin').textContent()).toContain(formatBytes(24 * MB));
    expect(errors).toEqual([]);
  });

  it('keeps the retention in Settings › Versions', async () => {
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
