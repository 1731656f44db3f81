import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from './axe';
import { type Stack, signIn, signUpNewUser, startStack, watchErrors } from './stack';
import { percentOf, throttle, upload } from './upload-helpers';

const artifacts = fileURLToPath(new URL('../.artifacts/', import.meta.url));
const shots = `${artifacts}screenshots/`;
const inputs = `${artifacts}inputs/`;
const MB = 1024 * 1024;
// A 2×2 red PNG.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVQI12P8z8DAwMDAxMDAwMDAAAANHQEDasKb6QAAAABJRU5ErkJggg==',
  'base64',
);

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const row = (page: Page, name: string) => page.locator(`.rows li[data-name="${name}"]`);
const stateOf = async (page: Page, name: string) =>
  upload(page, name).locator('.upload-state').getAttribute('data-state');

async function waitForState(page: Page, name: string, state: string, timeout = 60_000) {
  await upload(page, name).locator(`.upload-state[data-state="${state}"]`).waitFor({ timeout });
}

describe('files: upload, pause, resume, offline, reload, download, preview, share, live, isolation', () => {
  let stack: Stack;
  let context: BrowserContext;
  let page: Page;
  let errors: string[];
  let user: { email: string; password: string };
  const big = randomBytes(50 * MB);
  const second = randomBytes(30 * MB);
  const text = Buffer.from('Hello from Drive.\nSecond line.\n');

  beforeAll(async () => {
    mkdirSync(shots, { recursive: true });
    mkdirSync(inputs, { recursive: true });
    writeFileSync(`${inputs}big.bin`, big);
    writeFileSync(`${inputs}second.bin`, second);
    writeFileSync(`${inputs}notes.txt`, text);
    writeFileSync(`${inputs}red.png`, PNG);
    stack = await startStack();
    context = await stack.newContext();
    page = await context.newPage();
    errors = watchErrors(page);
    user = await signUpNewUser(page, stack);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('uploads several files at once, 50 MB included, pausing and resuming the big one', async () => {
    await throttle(await context.newCDPSession(page), 3 * MB);
    await page
      .getByTestId('file-picker')
      .setInputFiles([`${inputs}notes.txt`, `${inputs}red.png`, `${inputs}big.bin`]);
    await waitForState(page, 'big.bin', 'uploading');
    await expect.poll(() => percentOf(page, 'big.bin'), { timeout: 30_000 }).toBeGreaterThan(0);
    // By keyboard, as a keyboard user would (the row's numbers change ten times a second).
    await page.getByRole('button', { name: 'Pause big.bin' }).focus();
    await page.keyboard.press('Enter');
    await waitForState(page, 'big.bin', 'paused');
    const pausedAt = await percentOf(page, 'big.bin');
    expect(pausedAt).toBeLessThan(100);
    await page.waitForTimeout(1500);
    expect(await stateOf(page, 'big.bin')).toBe('paused');
    expect(await percentOf(page, 'big.bin')).toBe(pausedAt);
    await page.getByRole('button', { name: 'Resume big.bin' }).focus();
    await page.keyboard.press('Enter');
    // Taken once paused, not before: a screenshot can take seconds on a busy machine, and the
    // upload must still be under way when Pause is pressed.
    await page.screenshot({ path: `${shots}upload-tray.png` });
    await expectAccessible(page, 'upload tray');
    await waitForState(page, 'big.bin', 'done', 90_000);
    await waitForState(page, 'notes.txt', 'done');
    await waitForState(page, 'red.png', 'done');
    await row(page, 'big.bin').waitFor();
    const files = await stack.server.db.query<{ name: string; size: string; status: string }>(
      'select name, size::text, status from public.files order by name',
    );
    expect(files.rows).toEqual([
      { name: 'big.bin', size: String(50 * MB), status: 'ready' },
      { name: 'notes.txt', size: String(text.length), status: 'ready' },
      { name: 'red.png', size: String(PNG.length), status: 'ready' },
    ]);
    await page.screenshot({ path: `${shots}files.png` });
    await expectAccessible(page, 'files');
  });

  it('sends a file of up to one chunk with the request that creates the upload', async () => {
    const methods: string[] = [];
    const onRequest = (r: { url(): string; method(): string }) => {
      if (r.url().includes('/upload/resumable')) methods.push(r.method());
    };
    page.on('request', onRequest);
    const small = '# Small\n\nOne request is enough.\n';
    writeFileSync(`${inputs}small.md`, small);
    await page.getByTestId('file-picker').setInputFiles([`${inputs}small.md`]);
    await waitForState(page, 'small.md', 'done');
    page.off('request', onRequest);
    expect(methods).toEqual(['POST']);
    const stored = await stack.server.db.query<{ status: string; size: string }>(
      `select f.status, o.metadata ->> 'size' as size from public.files f
       join storage.objects o on o.bucket_id = 'files' and o.name = f.object_path
       where f.name = 'small.md'`,
    );
    expect(stored.rows).toEqual([{ status: 'ready', size: String(small.length) }]);
  });

  it('downloads a file with the same bytes', async () => {
    await row(page, 'big.bin').getByRole('checkbox').check();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page
        .getByRole('toolbar', { name: 'Selection actions' })
        .getByRole('button', { name: 'Download' })
        .click(),
    ]);
    expect(download.suggestedFilename()).toBe('big.bin');
    const path = await download.path();
    expect(sha(readFileSync(path))).toBe(sha(big));
    await row(page, 'big.bin').getByRole('checkbox').uncheck();
  });

  it('previews an image', async () => {
    await page.getByRole('button', { name: /^red\.png, Image/ }).click();
    const dialog = page.getByRole('dialog', { name: 'red.png' });
    const img = dialog.getByRole('img', { name: 'red.png' });
    await img.waitFor();
    await expect.poll(() => img.evaluate((el) => (el as HTMLImageElement).naturalWidth)).toBe(2);
    await page.screenshot({ path: `${shots}preview.png` });
    await expectAccessible(page, 'preview');
    await dialog.getByRole('button', { name: 'Close' }).click();
  });

  it('resumes after a reload when the same file is picked again', async () => {
    await throttle(await context.newCDPSession(page), 4 * MB);
    await page.getByTestId('file-picker').setInputFiles([`${inputs}second.bin`]);
    await expect.poll(() => percentOf(page, 'second.bin'), { timeout: 30_000 }).toBeGreaterThan(0);
    await page.reload();
    await page.getByRole('toolbar', { name: 'Folder actions' }).waitFor();
    const offsets: number[] = [];
    page.on('request', (r) => {
      if (r.method() === 'PATCH' && r.url().includes('/upload/resumable')) {
        offsets.push(Number(r.headers()['upload-offset']));
      }
    });
    await page.getByTestId('file-picker').setInputFiles([`${inputs}second.bin`]);
    await waitForState(page, 'second.bin', 'done', 90_000);
    expect(offsets.length).toBeGreaterThan(0);
    expect(offsets[0]).toBeGreaterThan(0);
    const rows = await stack.server.db.query<{ n: number }>(
      "select count(*)::int as n from public.files where name like 'second%'",
    );
    expect(rows.rows[0]?.n).toBe(1);
  });

  it('pauses when the network goes away and resumes when it comes back', async () => {
    await throttle(await context.newCDPSession(page), 4 * MB);
    writeFileSync(`${inputs}third.bin`, randomBytes(30 * MB));
    await page.getByTestId('file-picker').setInputFiles([`${inputs}third.bin`]);
    await expect.poll(() => percentOf(page, 'third.bin'), { timeout: 30_000 }).toBeGreaterThan(0);
    await context.setOffline(true);
    await waitForState(page, 'third.bin', 'paused');
    await page
      .getByText('You are offline. Uploads are paused and will resume when you are back online.')
      .first()
      .waitFor();
    expect(await upload(page, 'third.bin').locator('.upload-state').textContent()).toBe(
      'Paused (offline)',
    );
    await page.screenshot({ path: `${shots}offline.png` });
    await expectAccessible(page, 'offline');
    await context.setOffline(false);
    await waitForState(page, 'third.bin', 'done', 90_000);
  });

  it('shares a file with a link that a signed-out visitor can open', async () => {
    await row(page, 'notes.txt').getByRole('checkbox').check();
    await page
      .getByRole('toolbar', { name: 'Selection actions' })
      .getByRole('button', { name: 'Share' })
      .click();
    const dialog = page.getByRole('dialog', { name: 'Share “notes.txt”' });
    await dialog.getByLabel('Link expires after').selectOption({ label: '1 hour' });
    await dialog.getByRole('button', { name: 'Create link' }).click();
    const link = await dialog.getByLabel('Share link').inputValue();
    expect(link).toMatch(new RegExp(`^${stack.site.url}/s/[0-9a-f]{64}$`));
    await page.screenshot({ path: `${shots}share-dialog.png` });
    await expectAccessible(page, 'share dialog');
    await dialog.getByRole('button', { name: 'Close' }).click();
    await row(page, 'notes.txt').getByRole('checkbox').uncheck();

    const visitor = await stack.newContext();
    const guest = await visitor.newPage();
    await guest.goto(link);
    await guest.getByRole('heading', { name: 'notes.txt' }).waitFor();
    const [download] = await Promise.all([
      guest.waitForEvent('download'),
      guest.getByRole('button', { name: 'Download' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('notes.txt');
    expect(readFileSync((await download.path()) as string).equals(text)).toBe(true);
    await guest.screenshot({ path: `${shots}share-page.png` });
    await expectAccessible(guest, 'share page');

    await guest.goto(`${stack.site.url}/s/${'0'.repeat(64)}`);
    expect(await guest.getByRole('alert').textContent()).toBe('This link does not exist.');
    await visitor.close();
  });

  it('shows a new file in a second tab without reload', async () => {
    const tab = await context.newPage();
    await tab.goto(`${stack.site.url}/files`);
    await row(tab, 'notes.txt').waitFor();
    await expect.poll(() => tab.locator('.presence').textContent()).toBe('On 2 devices');
    writeFileSync(`${inputs}live.txt`, 'live');
    await page.getByTestId('file-picker').setInputFiles([`${inputs}live.txt`]);
    await row(tab, 'live.txt').waitFor({ timeout: 15_000 });
    await tab.screenshot({ path: `${shots}live-second-tab.png` });
    await expectAccessible(tab, 'live second tab');
    await tab.close();
  });

  it('keeps user A’s files out of user B’s reach by any URL', async () => {
    const folder = await stack.server.db.query<{ id: string }>(
      "insert into public.folders (owner_id, name) select id, 'Private' from auth.users where email = $1 returning id",
      [user.email],
    );
    const folderId = folder.rows[0]?.id;
    const file = await stack.server.db.query<{ id: string; object_path: string }>(
      "select id, object_path from public.files where name = 'notes.txt'",
    );
    const target = file.rows[0];
    expect(folderId && target).toBeTruthy();

    const other = await stack.newContext();
    const b = await other.newPage();
    await signUpNewUser(b, stack, 'Bob');
    await b.goto(`${stack.site.url}/files/${folderId}`);
    await b.getByRole('heading', { name: 'Folder not found' }).waitFor();
    await b.goto(`${stack.site.url}/files`);
    await b.getByText('This folder is empty.', { exact: false }).waitFor();

    const probe = await b.evaluate(
      async ({ url, anonKey, path, id }) => {
        const key = Object.keys(localStorage).find((k) => k.includes('auth'));
        const token = key ? JSON.parse(localStorage.getItem(key) ?? '{}').access_token : null;
        const headers = { apikey: anonKey, authorization: `Bearer ${token}` };
        const enc = path.split('/').map(encodeURIComponent).join('/');
        const rest = await fetch(`${url}/rest/v1/files?id=eq.${id}&select=*`, { headers });
        const object = await fetch(`${url}/storage/v1/object/files/${enc}`, { headers });
        const auth = await fetch(`${url}/storage/v1/object/authenticated/files/${enc}`, {
          headers,
        });
        const sign = await fetch(`${url}/storage/v1/object/sign/files/${enc}`, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: JSON.stringify({ expiresIn: 60 }),
        });
        return {
          hasToken: Boolean(token),
          rest: await rest.json(),
          object: object.ok,
          auth: auth.ok,
          sign: sign.ok,
        };
      },
      {
        url: stack.server.url,
        anonKey: stack.server.anonKey,
        path: target?.object_path ?? '',
        id: target?.id ?? '',
      },
    );
    expect(probe).toEqual({ hasToken: true, rest: [], object: false, auth: false, sign: false });
    await other.close();
  });

  it('threw no uncaught error in the page', () => {
    expect(errors).toEqual([]);
  });

  it('signs the same user in on a fresh device and finds the files there', async () => {
    const device = await stack.newContext();
    const p = await device.newPage();
    await signIn(p, stack, user);
    await row(p, 'big.bin').waitFor();
    await device.close();
  });
});
