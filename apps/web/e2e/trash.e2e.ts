import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from './axe';
import { namesIn } from './drive-helpers';
import { type Stack, signIn, signUpNewUser, startStack, watchErrors } from './stack';

const artifacts = fileURLToPath(new URL('../.artifacts/', import.meta.url));
const shots = `${artifacts}screenshots/`;
const inputs = `${artifacts}inputs/`;

const row = (page: Page, name: string) => page.locator(`.rows li[data-name="${name}"]`);
const toast = (page: Page, text: string | RegExp) =>
  page.getByRole('region', { name: 'Notifications' }).locator('li', { hasText: text });

describe('Trash and Undo, as a new user', () => {
  let stack: Stack;
  let page: Page;
  let errors: string[];
  let uid: string;
  let user: { email: string; password: string };

  beforeAll(async () => {
    mkdirSync(shots, { recursive: true });
    mkdirSync(inputs, { recursive: true });
    writeFileSync(`${inputs}trash-report.txt`, 'x'.repeat(4000));
    writeFileSync(`${inputs}trash-inner.txt`, 'y'.repeat(1000));
    stack = await startStack();
    page = await (await stack.newContext()).newPage();
    errors = watchErrors(page);
    user = await signUpNewUser(page, stack);
    uid = (
      await stack.server.db.query<{ id: string }>('select id from auth.users where email = $1', [
        user.email,
      ])
    ).rows[0]?.id as string;
  });
  afterAll(async () => {
    await stack?.stop();
  });

  async function upload(file: string) {
    await page.getByTestId('file-picker').setInputFiles([`${inputs}${file}`]);
    await page
      .locator('.tray li.upload')
      .filter({ hasText: file })
      .locator('.upload-state[data-state="done"]')
      .waitFor({ timeout: 60_000 });
    await row(page, file).waitFor();
  }

  async function menu(name: string, item: string) {
    await page.getByRole('button', { name: `Actions for ${name}` }).click();
    const m = page.getByRole('menu', { name: `Actions for ${name}` });
    await m.waitFor();
    await m.getByRole('menuitem', { name: item, exact: true }).click();
  }

  it('sets up a folder with a file in it, and a file beside it', async () => {
    await page.getByRole('button', { name: 'New folder' }).click();
    const dialog = page.getByRole('dialog', { name: 'New folder' });
    await dialog.getByLabel('Folder name').fill('Projects');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await row(page, 'Projects').waitFor();
    await upload('trash-report.txt');
    await page.getByRole('button', { name: /^Projects, Folder/ }).click();
    await page.getByRole('navigation', { name: 'Breadcrumbs' }).getByText('Projects').waitFor();
    await upload('trash-inner.txt');
    await page
      .getByRole('navigation', { name: 'Breadcrumbs' })
      .getByRole('link', { name: 'My files' })
      .click();
    await expect
      .poll(() => namesIn(page), { timeout: 10_000 })
      .toEqual(['Projects', 'trash-report.txt']);
  });

  it('moves a file to the Trash from its menu, and Undo brings it back — on the other device too', async () => {
    const other = await (await stack.newContext()).newPage();
    await signIn(other, stack, user);
    await row(other, 'trash-report.txt').waitFor();
    await menu('trash-report.txt', 'Move to Trash');
    const note = toast(page, '“trash-report.txt” moved to Trash.');
    await note.waitFor();
    await row(page, 'trash-report.txt').waitFor({ state: 'detached' });
    await row(other, 'trash-report.txt').waitFor({ state: 'detached', timeout: 10_000 });
    await expectAccessible(page, 'the folder with an Undo toast');
    await page.screenshot({ path: `${shots}trash-undo-toast.png` });
    await note.getByRole('button', { name: 'Undo' }).click();
    await row(page, 'trash-report.txt').waitFor();
    await row(other, 'trash-report.txt').waitFor({ timeout: 10_000 });
    await other.context().close();
    const back = await stack.server.db.query<{ trashed_at: string | null }>(
      "select trashed_at from public.files where name = 'trash-report.txt'",
    );
    expect(back.rows).toEqual([{ trashed_at: null }]);
  });

  it('moves a folder to the Trash with the Delete key (no confirmation: it can be undone)', async () => {
    await page.getByRole('button', { name: /^Projects, Folder/ }).focus();
    await page.keyboard.press('Delete');
    await toast(page, '“Projects” moved to Trash.').waitFor();
    await row(page, 'Projects').waitFor({ state: 'detached' });
    expect(await namesIn(page)).toEqual(['trash-report.txt']);
  });

  it('lists the Trash with where each item was, and when it was deleted', async () => {
    await menu('trash-report.txt', 'Move to Trash');
    await row(page, 'trash-report.txt').waitFor({ state: 'detached' });
    await page
      .getByRole('navigation', { name: 'Drive' })
      .getByRole('link', { name: 'Trash' })
      .click();
    await page.getByRole('heading', { name: 'Trash' }).waitFor();
    await expect
      .poll(() => namesIn(page), { timeout: 10_000 })
      .toEqual(['Projects', 'trash-report.txt']);
    expect(await row(page, 'Projects').locator('.c-type').textContent()).toBe('My files');
    expect(await page.locator('.list-head').textContent()).toContain('Original location');
    // Still counted in the storage used until deleted forever.
    const usage = await stack.server.db.query<{ n: string }>(
      'select sum(size)::text as n from public.files where owner_id = $1',
      [uid],
    );
    expect(usage.rows[0]?.n).toBe('5000');
    await page.screenshot({ path: `${shots}trash.png` });
    await expectAccessible(page, 'the Trash');
  });

  it('restores a folder with what was in it', async () => {
    await menu('Projects', 'Restore');
    await toast(page, 'Restored “Projects”.').waitFor();
    await row(page, 'Projects').waitFor({ state: 'detached' });
    await page.getByRole('link', { name: 'My files' }).first().click();
    await page.getByRole('button', { name: /^Projects, Folder/ }).click();
    await row(page, 'trash-inner.txt').waitFor();
    const rows = await stack.server.db.query<{ name: string; trashed_at: string | null }>(
      'select name, trashed_at from public.files where owner_id = $1 order by name',
      [uid],
    );
    expect(rows.rows.map((r) => [r.name, r.trashed_at === null])).toEqual([
      ['trash-inner.txt', true],
      ['trash-report.txt', false],
    ]);
  });

  it('deletes forever from the Trash, after confirmation, and frees the space', async () => {
    await page.goto(`${stack.site.url}/trash`);
    await row(page, 'trash-report.txt').waitFor();
    await page.getByRole('button', { name: /^trash-report\.txt, / }).focus();
    await page.keyboard.press('Delete');
    const dialog = page.getByRole('dialog', { name: 'Delete forever' });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain(
      'Delete “trash-report.txt” forever? This cannot be undone.',
    );
    await expectAccessible(page, 'the delete-forever dialog');
    await dialog.getByRole('button', { name: 'Delete forever' }).click();
    await toast(page, '“trash-report.txt” deleted forever.').waitFor();
    await page.getByText('The Trash is empty.').waitFor();
    const left = await stack.server.db.query<{ files: number; objects: number }>(
      `select (select count(*)::int from public.files where owner_id = $1) as files,
              (select count(*)::int from storage.objects where bucket_id = 'files' and name like $2) as objects`,
      [uid, `${uid}/%`],
    );
    expect(left.rows[0]).toEqual({ files: 1, objects: 1 });
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByText(/^1000 B of 10 GB used · 1 file$/).waitFor();
  });

  it('renames with F2, and Undo puts the old name back', async () => {
    await page.goto(`${stack.site.url}/files`);
    await page.getByRole('button', { name: /^Projects, Folder/ }).focus();
    await page.keyboard.press('F2');
    const dialog = page.getByRole('dialog', { name: 'Rename folder' });
    await dialog.getByLabel('New name').fill('Projects 2026');
    await dialog.getByRole('button', { name: 'Rename' }).click();
    await dialog.waitFor({ state: 'detached' });
    await row(page, 'Projects 2026').waitFor();
    await toast(page, 'Renamed “Projects” to “Projects 2026”.')
      .getByRole('button', { name: 'Undo' })
      .click();
    await row(page, 'Projects').waitFor();
  });

  it('moves with the menu, and Undo moves it back', async () => {
    await page.getByRole('button', { name: 'New folder' }).click();
    const create = page.getByRole('dialog', { name: 'New folder' });
    await create.getByLabel('Folder name').fill('Archive');
    await create.getByRole('button', { name: 'Create' }).click();
    await row(page, 'Archive').waitFor();
    await menu('Projects', 'Move');
    const dialog = page.getByRole('dialog', { name: 'Move “Projects”' });
    await dialog.getByLabel('Destination').selectOption({ label: '\u00a0\u00a0Archive' });
    await expectAccessible(page, 'the move dialog');
    await dialog.getByRole('button', { name: 'Move' }).click();
    await row(page, 'Projects').waitFor({ state: 'detached' });
    await toast(page, 'Moved “Projects” to Archive.').getByRole('button', { name: 'Undo' }).click();
    await row(page, 'Projects').waitFor();
    const parent = await stack.server.db.query<{ parent_id: string | null }>(
      "select parent_id from public.folders where name = 'Projects'",
    );
    expect(parent.rows).toEqual([{ parent_id: null }]);
  });

  it('empties the Trash', async () => {
    await menu('Archive', 'Move to Trash');
    await row(page, 'Archive').waitFor({ state: 'detached' });
    await page.goto(`${stack.site.url}/trash`);
    await row(page, 'Archive').waitFor();
    await page.getByRole('button', { name: 'Empty Trash' }).click();
    const dialog = page.getByRole('dialog', { name: 'Empty Trash' });
    await expectAccessible(page, 'the empty-Trash dialog');
    await dialog.getByRole('button', { name: 'Empty Trash' }).click();
    await page.getByText('The Trash is empty.').waitFor();
    await toast(page, 'Trash emptied.').waitFor();
    const folders = await stack.server.db.query<{ name: string }>(
      'select name from public.folders where owner_id = $1',
      [uid],
    );
    expect(folders.rows).toEqual([{ name: 'Projects' }]);
  });

  it('empties itself of what was deleted more than 30 days ago', async () => {
    await page.goto(`${stack.site.url}/files`);
    await menu('Projects', 'Move to Trash');
    await row(page, 'Projects').waitFor({ state: 'detached' });
    await stack.server.db.query(
      "update public.folders set trashed_at = now() - interval '31 days' where owner_id = $1",
      [uid],
    );
    // Opening the Trash asks the backend to purge (a scheduler would too: see the README).
    await page.goto(`${stack.site.url}/trash`);
    await page.getByText('The Trash is empty.').waitFor({ timeout: 20_000 });
    await expect
      .poll(async () => {
        const r = await stack.server.db.query<{ n: number }>(
          'select count(*)::int as n from public.files where owner_id = $1',
          [uid],
        );
        return r.rows[0]?.n;
      })
      .toBe(0);
  });

  it('deleting a folder forever keeps what was deleted from it before, restorable', async () => {
    await page.goto(`${stack.site.url}/files`);
    await page.getByRole('button', { name: 'New folder' }).click();
    const create = page.getByRole('dialog', { name: 'New folder' });
    await create.getByLabel('Folder name').fill('Keepsakes');
    await create.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('button', { name: /^Keepsakes, Folder/ }).click();
    await page.getByRole('navigation', { name: 'Breadcrumbs' }).getByText('Keepsakes').waitFor();
    await upload('trash-inner.txt');
    await menu('trash-inner.txt', 'Move to Trash');
    await row(page, 'trash-inner.txt').waitFor({ state: 'detached' });
    await page
      .getByRole('navigation', { name: 'Breadcrumbs' })
      .getByRole('link', { name: 'My files' })
      .click();
    await menu('Keepsakes', 'Move to Trash');
    await row(page, 'Keepsakes').waitFor({ state: 'detached' });

    await page.goto(`${stack.site.url}/trash`);
    await row(page, 'Keepsakes').waitFor();
    expect(await row(page, 'trash-inner.txt').locator('.c-type').textContent()).toBe(
      'My files › Keepsakes',
    );
    await menu('Keepsakes', 'Delete forever');
    await page
      .getByRole('dialog', { name: 'Delete forever' })
      .getByRole('button', { name: 'Delete forever' })
      .click();
    await toast(page, '“Keepsakes” deleted forever.').waitFor();
    await row(page, 'Keepsakes').waitFor({ state: 'detached' });
    // The file deleted by itself before is still in the Trash; its folder is gone.
    await expect
      .poll(() => row(page, 'trash-inner.txt').locator('.c-type').textContent())
      .toBe('My files');

    await menu('trash-inner.txt', 'Restore');
    await toast(page, 'Restored “trash-inner.txt”.').waitFor();
    await page.goto(`${stack.site.url}/files`);
    await row(page, 'trash-inner.txt').waitFor();
    const left = await stack.server.db.query<{ files: number; objects: number; folders: number }>(
      `select (select count(*)::int from public.files where owner_id = $1 and trashed_at is null) as files,
              (select count(*)::int from storage.objects where bucket_id = 'files' and name like $2) as objects,
              (select count(*)::int from public.folders where owner_id = $1) as folders`,
      [uid, `${uid}/%`],
    );
    expect(left.rows[0]).toEqual({ files: 1, objects: 1, folders: 0 });
  });

  it('threw no uncaught error in the page', () => {
    expect(errors).toEqual([]);
  });
});
