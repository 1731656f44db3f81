/**
 * Uploads that are never lost, as a user meets them: an upload cut by a reload is listed in
 * the upload panel as incomplete and resumes from the server's offset (picking the file again,
 * or from its handle when it was dropped in Chromium); Cancel deletes the server's upload and
 * the placeholder; an abandoned upload counts only for what it holds and expires with its tus
 * upload; signing out clears the browser's records; whole folders keep their tree. A second
 * browser context (the user's phone) sees the incomplete and the cancelled files live.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, CDPSession, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from './axe';
import { type Stack, signIn, signUpNewUser, startStack, watchErrors } from './stack';
import {
  drop,
  patchOffsets,
  percentOf,
  recordsIn,
  rowOf,
  throttle,
  tray,
  upload,
} from './upload-helpers';

const inputs = fileURLToPath(new URL('../.artifacts/inputs/uploads/', import.meta.url));
const shots = fileURLToPath(new URL('../.artifacts/screenshots/', import.meta.url));
const MB = 1024 * 1024;

describe('uploads that are never lost', () => {
  let stack: Stack;
  let laptopContext: BrowserContext;
  let laptop: Page;
  let phone: Page;
  let cdp: CDPSession;
  let user: { email: string; password: string };
  const errors: string[][] = [];

  const db = <T>(sql: string, params: unknown[] = []) =>
    stack.server.db.query<T & Record<string, unknown>>(sql, params).then((r) => r.rows);
  /** Starts an upload slowly, lets it get part-way, and reloads the page in the middle. */
  async function interrupt(name: string, how: 'pick' | 'drop' | 'button') {
    await throttle(cdp, 3 * MB);
    if (how === 'pick') await laptop.getByTestId('file-picker').setInputFiles([`${inputs}${name}`]);
    else if (how === 'button') await laptop.getByRole('button', { name: 'Upload files' }).click();
    else await drop(cdp, [`${inputs}${name}`]);
    await expect.poll(() => percentOf(laptop, name), { timeout: 30_000 }).toBeGreaterThan(20);
    // Let the progress reach the backend (it is written down every 2 s at most).
    await expect
      .poll(
        async () =>
          (
            await db<{ n: number }>(
              `select coalesce(max(u.bytes_uploaded), 0)::float8 as n from public.uploads u
                join public.files f on f.id = u.file_id where f.name = $1`,
              [name],
            )
          )[0]?.n ?? 0,
        { timeout: 15_000 },
      )
      .toBeGreaterThan(0);
    await laptop.reload();
    await laptop.getByRole('toolbar', { name: 'Folder actions' }).waitFor();
    await throttle(cdp, -1);
  }

  beforeAll(async () => {
    mkdirSync(inputs, { recursive: true });
    mkdirSync(shots, { recursive: true });
    for (const [name, size] of [
      ['picked.bin', 24 * MB],
      ['dropped.bin', 24 * MB],
      ['cancelled.bin', 24 * MB],
      ['abandoned.bin', 24 * MB],
      ['signed-out.bin', 24 * MB],
      ['other.bin', 1 * MB],
    ] as const) {
      writeFileSync(`${inputs}${name}`, randomBytes(size));
    }
    mkdirSync(`${inputs}Trip/Day 1/Photos`, { recursive: true });
    mkdirSync(`${inputs}Trip/Empty`, { recursive: true });
    writeFileSync(`${inputs}Trip/plan.txt`, 'plan');
    writeFileSync(`${inputs}Trip/Day 1/notes.md`, '# day 1');
    writeFileSync(`${inputs}Trip/Day 1/Photos/a.txt`, 'a');
    stack = await startStack();
    laptopContext = await stack.newContext();
    laptop = await laptopContext.newPage();
    cdp = await laptopContext.newCDPSession(laptop);
    phone = await (await stack.newContext()).newPage();
    errors.push(watchErrors(laptop), watchErrors(phone));
    user = await signUpNewUser(laptop, stack, 'Ada');
    await signIn(phone, stack, user);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('lists an upload cut by a reload as incomplete, and resumes it from the server’s offset when the file is picked again', async () => {
    await interrupt('picked.bin', 'pick');
    const item = upload(laptop, 'picked.bin');
    await item.locator('.upload-state', { hasText: 'Incomplete' }).waitFor();
    expect(await percentOf(laptop, 'picked.bin')).toBeGreaterThan(0);
    expect(await tray(laptop).getByRole('status').textContent()).toBe('1 incomplete');
    // In the list it is an incomplete file, here and on the phone.
    for (const page of [laptop, phone]) {
      await rowOf(page, 'picked.bin').locator('.badge', { hasText: 'incomplete' }).waitFor();
    }
    await laptop.screenshot({ path: `${shots}upload-incomplete.png` });
    await expectAccessible(laptop, 'upload incomplete');

    // Another file is refused, saying which one is wanted.
    let chooser = laptop.waitForEvent('filechooser');
    await item.getByRole('button', { name: 'Resume picked.bin' }).click();
    await (await chooser).setFiles(`${inputs}other.bin`);
    await tray(laptop)
      .getByRole('alert')
      .filter({ hasText: 'To resume “picked.bin”, pick that same file (24 MB)' })
      .waitFor();

    const offsets = patchOffsets(laptop);
    chooser = laptop.waitForEvent('filechooser');
    await item.getByRole('button', { name: 'Resume picked.bin' }).click();
    await (await chooser).setFiles(`${inputs}picked.bin`);
    await item.locator('.upload-state[data-state="done"]').waitFor({ timeout: 60_000 });
    expect(offsets[0]).toBeGreaterThan(0);
    await rowOf(phone, 'picked.bin').waitFor();
    await expect.poll(() => rowOf(phone, 'picked.bin').locator('.badge').count()).toBe(0);
    expect(await recordsIn(laptop)).toEqual([]);
    expect(
      await db(
        'select 1 from public.uploads u join public.files f on f.id = u.file_id where f.name = $1',
        ['picked.bin'],
      ),
    ).toEqual([]);
  });

  it('resumes a dropped file from its handle after a reload, without picking it again', async () => {
    await interrupt('dropped.bin', 'drop');
    const item = upload(laptop, 'dropped.bin');
    await item.locator('.upload-state', { hasText: 'Incomplete' }).waitFor();
    expect(await recordsIn(laptop)).toEqual(['dropped.bin']);
    const choosers: unknown[] = [];
    laptop.on('filechooser', (c) => choosers.push(c));
    const offsets = patchOffsets(laptop);
    await item.getByRole('button', { name: 'Resume dropped.bin' }).click();
    await item.locator('.upload-state[data-state="done"]').waitFor({ timeout: 60_000 });
    expect(choosers).toEqual([]);
    expect(offsets[0]).toBeGreaterThan(0);
    expect(await recordsIn(laptop)).toEqual([]);
  });

  // Playwright cannot answer Chromium's File System Access pickers (it closes them: the page
  // gets an AbortError), so in these tests the picker hands out real handles from the
  // origin-private file system (`navigator.storage.getDirectory()`) instead of the disk.
  it('resumes a file picked with the File System Access picker from its handle after a reload', async () => {
    const digest = await laptop.evaluate(
      async ({ name, size }) => {
        const root = await navigator.storage.getDirectory();
        const handle = await root.getFileHandle(name, { create: true });
        const out = await handle.createWritable();
        const piece = new Uint8Array(65536);
        for (let at = 0; at < size; at += piece.length) {
          crypto.getRandomValues(piece);
          await out.write(piece);
        }
        await out.close();
        Object.assign(window, { showOpenFilePicker: async () => [handle] });
        const bytes = await (await handle.getFile()).arrayBuffer();
        return [...new Uint8Array(await crypto.subtle.digest('SHA-256', bytes))]
          .map((b) => b.toString(16).padStart(2, '0'))
          .join('');
      },
      { name: 'handle.bin', size: 24 * MB },
    );
    await interrupt('handle.bin', 'button');
    const item = upload(laptop, 'handle.bin');
    await item.locator('.upload-state', { hasText: 'Incomplete' }).waitFor();
    // The browser's record kept the handle (IndexedDB stores it as it is).
    const kept = await laptop.evaluate(
      () =>
        new Promise<unknown>((resolve) => {
          const open = indexedDB.open('drive-uploads', 1);
          open.onsuccess = () => {
            const get = open.result.transaction('uploads').objectStore('uploads').getAll();
            get.onsuccess = () => {
              const records = get.result as { name: string; handle?: FileSystemFileHandle }[];
              resolve(records.map((r) => [r.name, r.handle?.kind, r.handle?.name]));
              open.result.close();
            };
          };
        }),
    );
    expect(kept).toEqual([['handle.bin', 'file', 'handle.bin']]);
    const choosers: unknown[] = [];
    laptop.on('filechooser', (c) => choosers.push(c));
    const offsets = patchOffsets(laptop);
    await item.getByRole('button', { name: 'Resume handle.bin' }).click();
    await item.locator('.upload-state[data-state="done"]').waitFor({ timeout: 60_000 });
    expect(choosers).toEqual([]);
    expect(offsets[0]).toBeGreaterThan(0);
    expect(await recordsIn(laptop)).toEqual([]);
    // The server has the same bytes.
    const [file] = await db<{ object_path: string }>(
      "select object_path from public.files where name = 'handle.bin' and status = 'ready'",
    );
    const res = await fetch(
      `${stack.server.url}/storage/v1/object/files/${file?.object_path ?? ''}`,
      {
        headers: {
          apikey: stack.server.serviceRoleKey,
          authorization: `Bearer ${stack.server.serviceRoleKey}`,
        },
      },
    );
    expect(res.status).toBe(200);
    const stored = Buffer.from(await res.arrayBuffer());
    expect(stored.length).toBe(24 * MB);
    expect(createHash('sha256').update(stored).digest('hex')).toBe(digest);
  });

  it('cancels an incomplete upload: the server’s upload and the placeholder go, on every device', async () => {
    await interrupt('cancelled.bin', 'pick');
    const [record] = await db<{ upload_url: string }>(
      `select u.upload_url from public.uploads u join public.files f on f.id = u.file_id
        where f.name = 'cancelled.bin'`,
    );
    // 24 MiB (4 chunks) goes up as two parts side by side: the record names both.
    expect(record?.upload_url).toMatch(/^final;\S+\/storage\/v1\/upload\/resumable\/\S+ \S+$/);
    const parts = (record?.upload_url ?? '').slice('final;'.length).split(' ');
    await rowOf(phone, 'cancelled.bin').waitFor();
    await upload(laptop, 'cancelled.bin')
      .getByRole('button', { name: 'Cancel cancelled.bin' })
      .click();
    await upload(laptop, 'cancelled.bin').waitFor({ state: 'detached' });
    await rowOf(phone, 'cancelled.bin').waitFor({ state: 'detached', timeout: 15_000 });
    await expect
      .poll(() => db("select 1 from public.files where name = 'cancelled.bin'"))
      .toEqual([]);
    // The tus uploads themselves are gone: asking for their offsets, as their owner, finds
    // nothing.
    const statuses = await laptop.evaluate(
      async ({ urls, anonKey }) => {
        const key = Object.keys(localStorage).find((k) => k.includes('auth'));
        const token = key ? JSON.parse(localStorage.getItem(key) ?? '{}').access_token : '';
        const heads = urls.map((url) =>
          fetch(url, {
            method: 'HEAD',
            headers: {
              'tus-resumable': '1.0.0',
              apikey: anonKey,
              authorization: `Bearer ${token}`,
            },
          }),
        );
        return (await Promise.all(heads)).map((res) => res.status);
      },
      { urls: parts, anonKey: stack.server.anonKey },
    );
    expect(statuses).toHaveLength(2);
    for (const status of statuses) expect([404, 410]).toContain(status);
    expect(await recordsIn(laptop)).toEqual([]);
  });

  it('counts an abandoned upload only for what it holds, and expires it with its tus upload', async () => {
    await interrupt('abandoned.bin', 'pick');
    const usage = async () =>
      (
        await db<{ used: number; held: number; size: number }>(
          `select public.used_bytes(f.owner_id)::float8 as used, u.bytes_uploaded::float8 as held,
                  (select coalesce(sum(size), 0) from public.files r
                    where r.owner_id = f.owner_id and r.status = 'ready')::float8 as size
             from public.files f join public.uploads u on u.file_id = f.id
            where f.name = 'abandoned.bin'`,
        )
      )[0];
    const before = await usage();
    expect(before?.held).toBeGreaterThan(0);
    expect(before?.held).toBeLessThan(24 * MB);
    expect(before?.used).toBe((before?.size ?? 0) + (before?.held ?? 0));
    // A day later (the tus upload's lifetime): the placeholder goes when usage is next read.
    await db(
      `update public.uploads set started_at = now() - interval '25 hours'
        where file_id = (select id from public.files where name = 'abandoned.bin')`,
    );
    await laptop
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Settings' })
      .click();
    await laptop
      .getByText(/GB used|MB used/)
      .first()
      .waitFor();
    await expect
      .poll(() => db("select 1 from public.files where name = 'abandoned.bin'"))
      .toEqual([]);
    await laptop
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Files' })
      .click();
    await rowOf(phone, 'abandoned.bin').waitFor({ state: 'detached', timeout: 15_000 });
    // Its entry in the panel is only this browser's record now.
    await upload(laptop, 'abandoned.bin')
      .getByRole('button', { name: 'Cancel abandoned.bin' })
      .click();
  });

  it('forgets this browser’s upload records on sign-out; the same file picked after signing in again resumes', async () => {
    await interrupt('signed-out.bin', 'pick');
    expect(await recordsIn(laptop)).toEqual(['signed-out.bin']);
    await laptop.getByRole('button', { name: 'Sign out' }).click();
    await laptop.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(await recordsIn(laptop)).toEqual([]);
    await signIn(laptop, stack, user);
    expect(await tray(laptop).count()).toBe(0);
    // The backend kept the upload: the same file resumes from its offset.
    const offsets = patchOffsets(laptop);
    await laptop.getByTestId('file-picker').setInputFiles([`${inputs}signed-out.bin`]);
    await upload(laptop, 'signed-out.bin')
      .locator('.upload-state[data-state="done"]')
      .waitFor({ timeout: 60_000 });
    expect(offsets[0]).toBeGreaterThan(0);
  });

  it('uploads a picked folder and a dropped folder with their trees', async () => {
    const tree = async (root: string) =>
      db<{ path: string }>(
        `with recursive t(id, path) as (
           select id, name::text from public.folders where name = $1 and parent_id is null
           union all select f.id, t.path || '/' || f.name from public.folders f join t on f.parent_id = t.id)
         select path from t
         union all select t.path || '/' || f.name from public.files f join t on f.folder_id = t.id
         order by 1`,
        [root],
      );
    await laptop.getByTestId('folder-picker').setInputFiles(`${inputs}Trip`);
    await rowOf(laptop, 'Trip').waitFor({ timeout: 30_000 });
    await rowOf(phone, 'Trip').waitFor({ timeout: 15_000 });
    await expect
      .poll(() => tree('Trip'), { timeout: 30_000 })
      .toEqual(
        [
          'Trip',
          'Trip/Day 1',
          'Trip/Day 1/Photos',
          'Trip/Day 1/Photos/a.txt',
          'Trip/Day 1/notes.md',
          'Trip/plan.txt',
        ].map((path) => ({ path })),
      );
    // A folder input leaves empty folders out (the browser gives files only); a drop keeps them.
    await db(
      "update public.folders set name = 'Trip (picked)' where name = 'Trip' and parent_id is null",
    );
    await drop(cdp, [`${inputs}Trip`]);
    await expect
      .poll(() => tree('Trip'), { timeout: 30_000 })
      .toEqual(
        [
          'Trip',
          'Trip/Day 1',
          'Trip/Day 1/Photos',
          'Trip/Day 1/Photos/a.txt',
          'Trip/Day 1/notes.md',
          'Trip/Empty',
          'Trip/plan.txt',
        ].map((path) => ({ path })),
      );
    await laptop.screenshot({ path: `${shots}upload-folder.png` });
    await expectAccessible(laptop, 'upload folder');
  });

  it('uploads a folder picked with the File System Access folder picker, empty folders too', async () => {
    await laptop.evaluate(async () => {
      const root = await navigator.storage.getDirectory();
      const album = await root.getDirectoryHandle('Album', { create: true });
      const write = async (dir: FileSystemDirectoryHandle, name: string, text: string) => {
        const out = await (await dir.getFileHandle(name, { create: true })).createWritable();
        await out.write(text);
        await out.close();
      };
      await write(album, 'cover.txt', 'cover');
      const day = await album.getDirectoryHandle('Day 2', { create: true });
      await write(day, 'notes.md', '# day 2');
      await album.getDirectoryHandle('Empty', { create: true });
      Object.assign(window, { showDirectoryPicker: async () => album });
    });
    const choosers: unknown[] = [];
    laptop.on('filechooser', (c) => choosers.push(c));
    await laptop.getByRole('button', { name: 'Upload folder' }).click();
    await rowOf(laptop, 'Album').waitFor({ timeout: 30_000 });
    const tree = () =>
      db<{ path: string }>(
        `with recursive t(id, path) as (
           select id, name::text from public.folders where name = 'Album' and parent_id is null
           union all select f.id, t.path || '/' || f.name from public.folders f join t on f.parent_id = t.id)
         select path from t
         union all select t.path || '/' || f.name from public.files f join t on f.folder_id = t.id
          where f.status = 'ready'
         order by 1`,
      );
    await expect
      .poll(tree, { timeout: 30_000 })
      .toEqual(
        ['Album', 'Album/Day 2', 'Album/Day 2/notes.md', 'Album/Empty', 'Album/cover.txt'].map(
          (path) => ({ path }),
        ),
      );
    expect(choosers).toEqual([]);
  });

  it('threw no uncaught error in any page', () => {
    expect(errors).toEqual([[], []]);
  });
});
