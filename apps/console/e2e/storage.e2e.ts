import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  accessibilityViolations,
  type ConsoleStack,
  startConsoleStack,
  watchErrors,
} from './stack';

let stack: ConsoleStack;
let errors: string[];
const bytes = randomBytes(7 * 1024 * 1024 + 123);

beforeAll(async () => {
  stack = await startConsoleStack();
  errors = watchErrors(stack.page);
});
afterAll(() => stack?.stop());

describe('console: storage', () => {
  it('creates a bucket with limits and changes it', async () => {
    const page = stack.page;
    await stack.open('storage');
    await page.getByText('No buckets yet.').waitFor();
    await page.getByLabel('Name').fill('media');
    await page.getByLabel(/^File size limit/).fill('20MB');
    await page.getByLabel(/^Allowed MIME types/).fill('application/octet-stream, text/*');
    await page.getByRole('button', { name: 'Create bucket' }).click();
    await page.getByRole('link', { name: 'media' }).click();
    await page
      .getByText(/Private · limit 20 MB · types application\/octet-stream, text\/\*/)
      .waitFor();
    await page.getByRole('button', { name: 'Make public' }).click();
    await page.getByText(/^Public · limit/).waitFor();
    const bucket = await stack.server.db.query(
      `select public, file_size_limit::text as limit from storage.buckets where id = 'media'`,
    );
    expect(bucket.rows).toEqual([{ public: true, limit: '20000000' }]);
    expect(await accessibilityViolations(page)).toEqual([]);
  });

  it('uploads resumably with progress, browses folders, downloads, signs and deletes', async () => {
    const page = stack.page;
    await stack.open('storage/media/videos/2026');
    await page.getByText('This folder is empty.').waitFor();
    await page.locator('#upload-input').setInputFiles({
      name: 'clip.bin',
      mimeType: 'application/octet-stream',
      buffer: bytes,
    });
    const progress = page.getByRole('progressbar', { name: 'Upload of clip.bin' });
    await progress.waitFor();
    await page.getByText('done').waitFor();
    await page.getByRole('cell', { name: 'clip.bin', exact: true }).waitFor();
    expect(await page.getByRole('cell', { name: '7.3 MB' }).count()).toBe(1);
    // Resumable: the bytes went through tus, in 6 MiB chunks.
    const tus = await stack.server.db.query(
      `select metadata->>'size' as size from storage.objects where name = 'videos/2026/clip.bin'`,
    );
    expect(tus.rows).toEqual([{ size: String(bytes.length) }]);

    await stack.open('storage/media');
    await page.getByRole('link', { name: 'videos/' }).click();
    await page.getByRole('link', { name: '2026/' }).click();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download clip.bin' }).click(),
    ]);
    const saved = await readFile((await download.path()) as string);
    expect(saved.equals(bytes)).toBe(true);

    await page.getByRole('button', { name: 'Signed URL for clip.bin' }).click();
    const url = await page.getByRole('status').getByRole('link').getAttribute('href');
    const signed = await fetch(url ?? '');
    expect(Buffer.from(await signed.arrayBuffer()).equals(bytes)).toBe(true);
    expect(await accessibilityViolations(page)).toEqual([]);

    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Delete clip.bin' }).click();
    await page.getByText('This folder is empty.').waitFor();
    expect(errors).toEqual([]);
  });
});
