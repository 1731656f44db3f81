import { closeSync, ftruncateSync, mkdirSync, openSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from './axe';
import { type Stack, signUpNewUser, startStack, watchErrors } from './stack';

const artifacts = fileURLToPath(new URL('../.artifacts/', import.meta.url));
const shots = `${artifacts}screenshots/`;
const inputs = `${artifacts}inputs/`;
const GiB = 1024 ** 3;
const MiB = 1024 ** 2;
const MAX_FILE = 5 * GiB;
const QUOTA = 10 * GiB;

/** A file of `size` bytes that takes no disk space (sparse): the app refuses it unread. */
function sparseFile(path: string, size: number): void {
  const fd = openSync(path, 'w');
  try {
    ftruncateSync(fd, size);
  } finally {
    closeSync(fd);
  }
}

const uploadRow = (page: Page, name: string) =>
  page.locator('.tray li.upload').filter({ hasText: name });

describe('limits: the quota and the maximum file size', () => {
  let stack: Stack;
  let page: Page;
  let errors: string[];
  let email: string;
  /** Requests that would start an upload: begin_upload (rpc) or tus. */
  const uploadRequests: string[] = [];

  const filesNamed = async (name: string) =>
    (
      await stack.server.db.query<{ n: number }>(
        'select count(*)::int as n from public.files where name = $1',
        [name],
      )
    ).rows[0]?.n;

  /** Calls the backend as the signed-in user, from the page (as a modified client could). */
  const asUser = (
    path: string,
    init: { method: string; headers?: Record<string, string>; body?: string },
  ) =>
    page.evaluate(
      async ({ url, anonKey, path, init }) => {
        const key = Object.keys(localStorage).find((k) => k.includes('auth'));
        const token = key ? JSON.parse(localStorage.getItem(key) ?? '{}').access_token : '';
        const res = await fetch(`${url}${path}`, {
          ...init,
          headers: { apikey: anonKey, authorization: `Bearer ${token}`, ...init.headers },
        });
        return { status: res.status, body: await res.text() };
      },
      { url: stack.server.url, anonKey: stack.server.anonKey, path, init },
    );

  beforeAll(async () => {
    mkdirSync(shots, { recursive: true });
    mkdirSync(inputs, { recursive: true });
    writeFileSync(`${inputs}small.txt`, 'A small file that fits.\n');
    sparseFile(`${inputs}huge.iso`, MAX_FILE + 1);
    sparseFile(`${inputs}film.mp4`, 600 * MiB);
    stack = await startStack();
    page = await (await stack.newContext()).newPage();
    errors = watchErrors(page);
    page.on('request', (r) => {
      const url = r.url();
      if (url.includes('/rpc/begin_upload') || url.includes('/upload/resumable')) {
        uploadRequests.push(`${r.method()} ${url} ${r.postData() ?? ''}`);
      }
    });
    ({ email } = await signUpNewUser(page, stack));
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('refuses a file over 5 GB before uploading anything, and uploads the rest', async () => {
    await page
      .getByTestId('file-picker')
      .setInputFiles([`${inputs}huge.iso`, `${inputs}small.txt`]);
    const alert = page.getByRole('region', { name: 'Uploads' }).getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toBe('huge.iso is too large: the limit is 5 GB per file.');
    await uploadRow(page, 'small.txt').locator('.upload-state[data-state="done"]').waitFor({
      timeout: 60_000,
    });
    await page.screenshot({ path: `${shots}too-large.png` });
    await expectAccessible(page, 'too large');
    expect(await uploadRow(page, 'huge.iso').count()).toBe(0);
    expect(await filesNamed('huge.iso')).toBe(0);
    expect(await filesNamed('small.txt')).toBe(1);
    // Only small.txt's upload reached the backend.
    expect(uploadRequests.some((r) => r.includes('huge.iso'))).toBe(false);
    expect(uploadRequests.filter((r) => r.includes('/rpc/begin_upload'))).toHaveLength(1);
    await page.getByRole('button', { name: 'Dismiss' }).click();
    await alert.waitFor({ state: 'detached' });
  });

  it('has the backend refuse a file over 5 GB from a client that skips the check', async () => {
    const begun = await asUser('/rest/v1/rpc/begin_upload', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ p_folder_id: null, p_name: 'huge.iso', p_size: MAX_FILE + 1 }),
    });
    expect(begun.status).toBe(400);
    expect(JSON.parse(begun.body)).toMatchObject({ code: '23514' });
    expect(await filesNamed('huge.iso')).toBe(0);
  });

  it('refuses a file that would go over the 10 GB quota, saying how much is used', async () => {
    // 9.5 GB already stored (two big files in a folder), as the usage rpc counts it.
    await stack.server.db.query(
      `with owner as (select id from auth.users where email = $1),
       folder as (
         insert into public.folders (owner_id, name) select id, 'Archive' from owner returning id, owner_id
       )
       insert into public.files (owner_id, folder_id, name, size)
       select owner_id, id, n, s from folder,
         (values ('backup-2025.tar', $2::bigint), ('videos.tar', $3::bigint)) as v(n, s)`,
      [email, 5 * GiB, 4.5 * GiB],
    );
    // Stored: their objects exist and they are ready (an incomplete upload would count only
    // for the bytes it holds).
    await stack.server.db.query(
      `insert into storage.objects (bucket_id, name)
       select 'files', object_path from public.files where name in ('backup-2025.tar', 'videos.tar')`,
    );
    await stack.server.db.query(
      "update public.files set status = 'ready' where name in ('backup-2025.tar', 'videos.tar')",
    );
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Settings' })
      .click();
    await page.getByText('9.5 GB of 10 GB used · 3 files').waitFor();
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Files' })
      .click();
    await page.getByRole('toolbar', { name: 'Folder actions' }).waitFor();

    const before = uploadRequests.length;
    await page.getByTestId('file-picker').setInputFiles([`${inputs}film.mp4`]);
    const alert = page.getByRole('region', { name: 'Uploads' }).getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toBe(
      'Not enough storage for film.mp4: you are using 9.5 GB of 10 GB.',
    );
    await page.screenshot({ path: `${shots}quota.png` });
    await expectAccessible(page, 'quota');
    expect(await uploadRow(page, 'film.mp4').count()).toBe(0);
    expect(uploadRequests.length).toBe(before);
    expect(await filesNamed('film.mp4')).toBe(0);
    await page.getByRole('button', { name: 'Dismiss' }).click();
    await alert.waitFor({ state: 'detached' });
  });

  it('has the backend refuse it too when the page’s view of the usage is out of date', async () => {
    // As if another device had filled the drive since this page last looked: the usage the
    // page reads says the drive is empty.
    await page.route('**/rest/v1/rpc/storage_usage*', (route) =>
      route.fulfill({
        status: 200,
        contentType: 'application/json',
        body: JSON.stringify({ used_bytes: 0, file_count: 0, quota_bytes: QUOTA }),
      }),
    );
    await page.reload();
    await page.getByRole('toolbar', { name: 'Folder actions' }).waitFor();
    await page.getByTestId('file-picker').setInputFiles([`${inputs}film.mp4`]);
    const row = uploadRow(page, 'film.mp4');
    await row.locator('.upload-state[data-state="failed"]').waitFor({ timeout: 60_000 });
    const used = (
      await stack.server.db.query<{ used: string }>(
        `select sum(size)::text as used from public.files f
         join auth.users u on u.id = f.owner_id where u.email = $1`,
        [email],
      )
    ).rows[0]?.used;
    expect(Number(used)).toBeGreaterThan(9.5 * GiB);
    expect(Number(used) + 600 * MiB).toBeGreaterThan(QUOTA);
    expect(await row.locator('.upload-state').textContent()).toBe(
      'Failed: Not enough storage left for this file. You are using 9.5 GB of 10 GB.',
    );
    expect(
      await page.getByRole('region', { name: 'Uploads' }).getByRole('status').textContent(),
    ).toBe('1 upload failed');
    expect(await filesNamed('film.mp4')).toBe(0);
    await page.screenshot({ path: `${shots}quota-backend.png` });
    await expectAccessible(page, 'quota backend');
    await page.unroute('**/rest/v1/rpc/storage_usage*');
  });

  it('threw no uncaught error in the page', () => {
    expect(errors).toEqual([]);
  });
});
