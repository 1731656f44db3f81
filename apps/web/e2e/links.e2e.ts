import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from './axe';
import { makePng } from './png';
import { type Stack, signUpNewUser, startStack, watchErrors } from './stack';
import { throttle } from './upload-helpers';
import { readZip } from './zip-reader';

const artifacts = fileURLToPath(new URL('../.artifacts/', import.meta.url));
const shots = `${artifacts}screenshots/`;
const inputs = `${artifacts}inputs/links/`;
const NOTES = 'Meet at the station at nine.\n';
const PICTURE = makePng(64, 48);
const SENT = 'My holiday pictures, as promised.\n';
const MB = 1024 * 1024;

const row = (page: Page, name: string) => page.locator(`.rows li[data-name="${name}"]`);

describe('links to folders, with a password, and upload links, as a new user', () => {
  let stack: Stack;
  let page: Page;
  let errors: string[];
  let folderLink = '';
  let uploadLink = '';

  beforeAll(async () => {
    mkdirSync(shots, { recursive: true });
    mkdirSync(inputs, { recursive: true });
    writeFileSync(`${inputs}notes.txt`, NOTES);
    writeFileSync(`${inputs}map.png`, PICTURE);
    writeFileSync(`${inputs}sent.txt`, SENT);
    writeFileSync(`${inputs}album.bin`, Buffer.alloc(24 * MB, 7));
    stack = await startStack();
    page = await (await stack.newContext()).newPage();
    errors = watchErrors(page);
    await signUpNewUser(page, stack);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  /** Opens the Share dialog of the folder "Trip" (from My files). */
  async function shareTrip() {
    await page.getByRole('button', { name: 'Actions for Trip' }).click();
    await page.getByRole('menuitem', { name: 'Share' }).click();
    const dialog = page.getByRole('dialog', { name: 'Share “Trip”' });
    await dialog.getByRole('button', { name: 'Create link' }).waitFor();
    return dialog;
  }

  it('the owner makes a folder link with a password, and an upload link', async () => {
    await page.getByRole('button', { name: 'New folder' }).click();
    const create = page.getByRole('dialog', { name: 'New folder' });
    await create.getByLabel('Folder name').fill('Trip');
    await create.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('button', { name: /^Trip, Folder/ }).click();
    await page.getByRole('navigation', { name: 'Breadcrumbs' }).getByText('Trip').waitFor();
    await page.getByTestId('file-picker').setInputFiles([`${inputs}notes.txt`, `${inputs}map.png`]);
    for (const name of ['notes.txt', 'map.png']) {
      await page
        .locator('.tray li.upload')
        .filter({ hasText: name })
        .locator('.upload-state[data-state="done"]')
        .waitFor({ timeout: 30_000 });
    }
    await page.goto(`${stack.site.url}/files`);
    await row(page, 'Trip').waitFor();

    const dialog = await shareTrip();
    await dialog
      .getByLabel('Anyone with the link can')
      .selectOption({ label: 'View and download' });
    await dialog.getByLabel('Link expires after').selectOption({ label: 'Never' });
    await dialog.getByLabel('Password (optional)').fill('sesame-42');
    await dialog.getByRole('button', { name: 'Create link' }).click();
    await expect.poll(() => dialog.getByLabel('Share link').count()).toBe(1);
    folderLink = await dialog.getByLabel('Share link').inputValue();
    expect(folderLink).toMatch(new RegExp(`^${stack.site.url}/s/[0-9a-f]{64}$`));
    // The password is nowhere in the link.
    expect(folderLink).not.toContain('sesame');

    await dialog
      .getByLabel('Anyone with the link can')
      .selectOption({ label: 'Upload only (file request)' });
    await dialog.getByLabel('Size limit in MB (optional)').fill('30');
    await dialog.getByRole('button', { name: 'Create link' }).click();
    await expect.poll(() => dialog.getByLabel('Share link').inputValue()).not.toBe(folderLink);
    uploadLink = await dialog.getByLabel('Share link').inputValue();
    await expect.poll(() => dialog.locator('.shares li').count()).toBe(2);
    expect(await dialog.locator('.shares li').last().textContent()).toContain(
      'View and download · Password · Never expires',
    );
    await expectAccessible(page, 'the share dialog of a folder, with its links');
    await dialog.getByRole('button', { name: 'Close' }).click();
  });

  it('someone signed out opens the folder link, gives the password, previews and downloads', async () => {
    const guest = await (await stack.newContext()).newPage();
    const guestErrors = watchErrors(guest);
    await guest.goto(folderLink);
    await guest.getByRole('heading', { name: 'This link needs a password' }).waitFor();
    await expectAccessible(guest, 'the password step of a link');
    await guest.getByLabel('Password').fill('not it');
    await guest.getByRole('button', { name: 'Open' }).click();
    await guest.getByText('That password is not right.').waitFor();
    await expectAccessible(guest, 'a wrong password for a link');
    await guest.getByLabel('Password').fill('sesame-42');
    await guest.getByRole('button', { name: 'Open' }).click();
    await guest.getByRole('heading', { name: 'Trip' }).waitFor();
    const contents = guest.getByRole('list', { name: 'Contents of Trip' });
    await contents.getByRole('button', { name: 'Preview notes.txt' }).waitFor();
    await guest.screenshot({ path: `${shots}link-folder.png` });
    await expectAccessible(guest, 'a linked folder');

    await contents.getByRole('button', { name: 'Preview map.png' }).click();
    const preview = guest.getByRole('dialog', { name: 'map.png' });
    await preview.getByRole('img', { name: 'map.png' }).waitFor();
    await expect
      .poll(() =>
        preview.getByRole('img').evaluate((img) => (img as HTMLImageElement).naturalWidth),
      )
      .toBe(64);
    expect(await preview.getByRole('img').getAttribute('src')).toMatch(/^blob:/);
    await preview.getByRole('button', { name: 'Close' }).click();

    await contents.getByRole('button', { name: 'Preview notes.txt' }).click();
    const text = guest.getByRole('dialog', { name: 'notes.txt' });
    await text.getByText('Meet at the station at nine.').waitFor();
    await expectAccessible(guest, 'a file previewed through a link');
    const [download] = await Promise.all([
      guest.waitForEvent('download'),
      text.getByRole('button', { name: 'Download' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('notes.txt');
    expect(readFileSync((await download.path()) as string, 'utf8')).toBe(NOTES);
    await text.getByRole('button', { name: 'Close' }).click();

    const [zipped] = await Promise.all([
      guest.waitForEvent('download', { timeout: 30_000 }),
      guest.getByRole('button', { name: 'Download “Trip” as zip' }).click(),
    ]);
    expect(zipped.suggestedFilename()).toBe('Trip.zip');
    const zip = readZip(readFileSync(await zipped.path()));
    expect([...zip.keys()].sort()).toEqual(['Trip/', 'Trip/map.png', 'Trip/notes.txt']);
    expect(zip.get('Trip/map.png')?.equals(PICTURE)).toBe(true);
    expect(guestErrors).toEqual([]);
    await guest.context().close();
  });

  it('someone signed out uploads through the upload link, and sees nothing of the folder', async () => {
    const guest = await (await stack.newContext()).newPage();
    const guestErrors = watchErrors(guest);
    await guest.goto(uploadLink);
    await guest.getByRole('heading', { name: 'Upload files to “Trip”' }).waitFor();
    expect(await guest.getByText('notes.txt').count()).toBe(0);
    await expectAccessible(guest, 'an upload link');
    await guest.getByTestId('link-file-picker').setInputFiles([`${inputs}sent.txt`]);
    const mine = guest.getByRole('list', { name: 'Your uploads' });
    await mine.getByText('Uploaded').waitFor({ timeout: 30_000 });
    await guest.screenshot({ path: `${shots}link-upload.png` });
    await expectAccessible(guest, 'an upload link after an upload');
    expect(guestErrors).toEqual([]);
    await guest.context().close();

    // The owner has it in the folder, and sees the counts of both links.
    await page.getByRole('button', { name: /^Trip, Folder/ }).click();
    await row(page, 'sent.txt').waitFor({ timeout: 15_000 });
    await page.goto(`${stack.site.url}/files`);
    const dialog = await shareTrip();
    const links = dialog.locator('.shares li');
    await expect.poll(() => links.count()).toBe(2);
    expect(await links.first().textContent()).toContain('1 visit · 1 upload');
    expect(await links.last().textContent()).toContain('1 visit · 2 downloads');
    await dialog.getByRole('button', { name: 'Close' }).click();
  });

  it('someone signed out pauses an upload through the upload link and resumes it', async () => {
    const guest = await (await stack.newContext()).newPage();
    const guestErrors = watchErrors(guest);
    await guest.goto(uploadLink);
    await guest.getByRole('heading', { name: 'Upload files to “Trip”' }).waitFor();
    await throttle(await guest.context().newCDPSession(guest), 2 * MB);
    await guest.getByTestId('link-file-picker').setInputFiles([`${inputs}album.bin`]);
    const entry = guest.getByRole('list', { name: 'Your uploads' }).locator('li');
    const progress = guest.getByRole('progressbar', { name: 'Uploading album.bin' });
    const sent = () => progress.evaluate((p) => (p as HTMLProgressElement).value);
    await expect.poll(sent, { timeout: 30_000 }).toBeGreaterThan(0);
    await guest.getByRole('button', { name: 'Pause album.bin' }).click();
    await expect.poll(() => entry.getAttribute('data-state')).toBe('paused');
    await guest.getByText(/^Paused · \d+%$/).waitFor();
    const pausedAt = await sent();
    expect(pausedAt).toBeLessThan(24 * MB);
    await guest.waitForTimeout(1500);
    expect(await sent()).toBe(pausedAt);
    expect(await entry.getAttribute('data-state')).toBe('paused');
    await expectAccessible(guest, 'an upload link with a paused upload');
    await guest.getByRole('button', { name: 'Resume album.bin' }).click();
    await entry.getByText('Uploaded').waitFor({ timeout: 90_000 });
    const stored = await stack.server.db.query<{ size: string; status: string }>(
      "select size::text, status from public.files where name = 'album.bin'",
    );
    expect(stored.rows).toEqual([{ size: String(24 * MB), status: 'ready' }]);
    expect(guestErrors).toEqual([]);
    await guest.context().close();
  });

  it('threw no uncaught error in the owner’s page', () => {
    expect(errors).toEqual([]);
  });
});
