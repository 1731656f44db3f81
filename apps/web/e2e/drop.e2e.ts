/**
 * Files dropped without a disk file behind them (another page, an app that hands over only
 * the bytes, a drop made by a script): the browser gives no file-system handle and no entry
 * for them, only the file. Every one of them uploads, and nothing throws in the page.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, signUpNewUser, startStack, watchErrors } from './stack';
import { rowOf, upload } from './upload-helpers';

/** Drops files made in the page (a DataTransfer of Files: no handles) onto the page. */
function dropMadeFiles(page: Page, files: Array<{ name: string; text: string; type: string }>) {
  return page.evaluate((list) => {
    const data = new DataTransfer();
    for (const f of list) data.items.add(new File([f.text], f.name, { type: f.type }));
    const at = { clientX: 200, clientY: 300 };
    const target = document.elementFromPoint(at.clientX, at.clientY) ?? document.body;
    for (const type of ['dragenter', 'dragover', 'drop']) {
      target.dispatchEvent(
        new DragEvent(type, { ...at, dataTransfer: data, bubbles: true, cancelable: true }),
      );
    }
  }, files);
}

describe('a drop of files without file-system handles', () => {
  let stack: Stack;
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    stack = await startStack();
    page = await (await stack.newContext()).newPage();
    errors = watchErrors(page);
    await signUpNewUser(page, stack, 'Grace');
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('uploads every dropped file, and they appear in the list', async () => {
    const files = [
      { name: 'from-a-page.txt', text: 'dragged from another page\n', type: 'text/plain' },
      { name: 'from-an-app.csv', text: 'a,b\n1,2\n', type: 'text/csv' },
      { name: 'third.md', text: '# Third\n', type: 'text/markdown' },
    ];
    await dropMadeFiles(page, files);
    for (const f of files) {
      await upload(page, f.name).locator('.upload-state[data-state="done"]').waitFor();
      await rowOf(page, f.name).waitFor();
    }
    const stored = await stack.server.db.query<{ name: string; status: string; size: string }>(
      `select f.name, f.status, o.metadata ->> 'size' as size from public.files f
       join storage.objects o on o.bucket_id = 'files' and o.name = f.object_path
`,
    );
    const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : 1);
    expect(stored.rows.sort(byName)).toEqual(
      files
        .map((f) => ({ name: f.name, status: 'ready', size: String(f.text.length) }))
        .sort(byName),
    );
    expect(errors).toEqual([]);
  });
});
