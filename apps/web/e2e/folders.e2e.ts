import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from './axe';
import { type Stack, signUpNewUser, startStack, watchErrors } from './stack';

const shots = fileURLToPath(new URL('../.artifacts/screenshots/', import.meta.url));
const inputs = fileURLToPath(new URL('../.artifacts/inputs/', import.meta.url));

const names = (page: Page, kind = 'folder') =>
  page
    .locator(`.rows li[data-kind="${kind}"]`)
    .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-name')));

describe('folders', () => {
  let stack: Stack;
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    mkdirSync(shots, { recursive: true });
    stack = await startStack();
    page = await (await stack.newContext()).newPage();
    errors = watchErrors(page);
    await signUpNewUser(page, stack);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  async function newFolder(name: string) {
    await page.getByRole('button', { name: 'New folder' }).click();
    const dialog = page.getByRole('dialog', { name: 'New folder' });
    await dialog.getByLabel('Folder name').fill(name);
    await dialog.getByRole('button', { name: 'Create' }).click();
    return dialog;
  }

  it('creates folders, listed by name', async () => {
    await (await newFolder('Photos')).waitFor({ state: 'detached' });
    await (await newFolder('Archive')).waitFor({ state: 'detached' });
    // Each create refreshes the list on its own: wait for the list that has both.
    await expect.poll(() => names(page), { timeout: 10_000 }).toEqual(['Archive', 'Photos']);
  });

  it('refuses a name already taken, inline, in the protocol-free words of the product', async () => {
    const dialog = await newFolder('photos');
    const alert = dialog.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toBe('An item with this name already exists here.');
    await expectAccessible(page, 'the new-folder dialog with an error');
    await page.screenshot({ path: `${shots}name-conflict.png` });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
  });

  it('checks the name rules before asking the backend', async () => {
    const dialog = await newFolder('a/b');
    await dialog.getByText('Names cannot contain “/”.').waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
  });

  it('renames a folder', async () => {
    await page.getByLabel('Select Archive').check();
    await page
      .getByRole('toolbar', { name: 'Selection actions' })
      .getByRole('button', { name: 'Rename' })
      .click();
    const dialog = page.getByRole('dialog', { name: 'Rename folder' });
    await dialog.getByLabel('New name').fill('Old stuff');
    await expectAccessible(page, 'the rename dialog');
    await dialog.getByRole('button', { name: 'Rename' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.locator('.rows li[data-name="Old stuff"]').waitFor();
    expect(await names(page)).toEqual(['Old stuff', 'Photos']);
  });

  it('opens a folder, shows breadcrumbs, creates a sub-folder and goes back up', async () => {
    await page.getByRole('button', { name: /^Photos, Folder/ }).click();
    await page.waitForURL(/\/files\/[0-9a-f-]{36}$/);
    const crumbs = page.getByRole('navigation', { name: 'Breadcrumbs' });
    await crumbs.getByText('Photos').waitFor();
    await (await newFolder('2026')).waitFor({ state: 'detached' });
    await page.locator('.rows li[data-name="2026"]').waitFor();
    await page.screenshot({ path: `${shots}folder.png` });
    await expectAccessible(page, 'a folder with breadcrumbs');
    await crumbs.getByRole('link', { name: 'My files' }).click();
    await page.waitForURL(/\/files$/);
    // The address changes before React renders the new route: wait for the root's list.
    await crumbs.locator('[aria-current="page"]', { hasText: 'My files' }).waitFor();
    await expect.poll(() => names(page), { timeout: 10_000 }).toEqual(['Old stuff', 'Photos']);
  });

  it('moves a folder and what is in it to the Trash (it can be undone, so no confirmation)', async () => {
    await page.getByLabel('Select Photos').check();
    await page
      .getByRole('toolbar', { name: 'Selection actions' })
      .getByRole('button', { name: 'Move to Trash' })
      .click();
    await page.locator('.rows li[data-name="Photos"]').waitFor({ state: 'detached' });
    expect(await names(page)).toEqual(['Old stuff']);
    await page
      .getByRole('region', { name: 'Notifications' })
      .locator('li', { hasText: '“Photos” moved to Trash.' })
      .waitFor();
    const trashed = await stack.server.db.query<{ name: string; via: boolean }>(
      `select name, trashed_via is not null as via from public.folders
       where name in ('Photos', '2026') and trashed_at is not null order by name`,
    );
    expect(trashed.rows).toEqual([
      { name: '2026', via: true },
      { name: 'Photos', via: false },
    ]);
  });

  it('moves a file into another folder with the move dialog', async () => {
    writeFileSync(`${inputs}minutes.txt`, 'Minutes of the meeting.\n');
    await page.getByTestId('file-picker').setInputFiles([`${inputs}minutes.txt`]);
    await page
      .locator('.tray li.upload')
      .filter({ hasText: 'minutes.txt' })
      .locator('.upload-state[data-state="done"]')
      .waitFor({ timeout: 60_000 });
    await page.locator('.rows li[data-name="minutes.txt"]').waitFor();
    const target = await stack.server.db.query<{ id: string }>(
      "select id from public.folders where name = 'Old stuff'",
    );
    const targetId = target.rows[0]?.id;
    expect(targetId).toMatch(/^[0-9a-f-]{36}$/);

    await page.getByLabel('Select minutes.txt').check();
    await page
      .getByRole('toolbar', { name: 'Selection actions' })
      .getByRole('button', { name: 'Move', exact: true })
      .click();
    const dialog = page.getByRole('dialog', { name: 'Move “minutes.txt”' });
    const destination = dialog.getByLabel('Destination');
    // Every folder is offered (indented under “My files”), the current place first.
    await expect
      .poll(() => destination.locator('option').allTextContents(), { timeout: 15_000 })
      .toEqual(['My files', '\u00a0\u00a0Old stuff']);
    await destination.selectOption({ label: '\u00a0\u00a0Old stuff' });
    await page.screenshot({ path: `${shots}move-dialog.png` });
    await expectAccessible(page, 'the move dialog');
    await dialog.getByRole('button', { name: 'Move' }).click();
    await dialog.waitFor({ state: 'detached' });

    // Gone from here…
    await page.locator('.rows li[data-name="minutes.txt"]').waitFor({ state: 'detached' });
    expect(await names(page, 'file')).toEqual([]);
    const moved = await stack.server.db.query<{ folder_id: string | null }>(
      "select folder_id from public.files where name = 'minutes.txt'",
    );
    expect(moved.rows).toEqual([{ folder_id: targetId }]);
    // …and there.
    await page.getByRole('button', { name: /^Old stuff, Folder/ }).click();
    await page.waitForURL(`${stack.site.url}/files/${targetId}`);
    await page.getByRole('navigation', { name: 'Breadcrumbs' }).getByText('Old stuff').waitFor();
    await page.locator('.rows li[data-name="minutes.txt"]').waitFor();
    expect(await names(page, 'file')).toEqual(['minutes.txt']);
  });

  it('threw no uncaught error in the page', () => {
    expect(errors).toEqual([]);
  });
});
