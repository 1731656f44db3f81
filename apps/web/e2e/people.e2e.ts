/**
 * Sharing with people, as three people would do it, each in their own browser: Olga owns a
 * folder and shares it with Eddie (Editor) from its menu, and with Vera (Viewer) from the
 * selection bar together with a file of her root. Vera finds both in "Shared with me", opens,
 * previews and downloads, and is offered nothing that changes them (the server refuses a
 * rename anyway). Eddie uploads and renames in the folder; Olga sees it. Olga changes a role,
 * removes an invitation, and makes Eddie the owner.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from './axe';
import { type Stack, signUpNewUser, startStack, watchErrors } from './stack';

const inputs = fileURLToPath(new URL('../.artifacts/inputs/people/', import.meta.url));
const shots = fileURLToPath(new URL('../.artifacts/screenshots/', import.meta.url));

const rowOf = (page: Page, name: string) => page.locator(`.rows li[data-name="${name}"]`);
const names = (page: Page) =>
  page
    .locator('.rows li[data-name]')
    .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-name')).sort());
const menuItems = async (page: Page, name: string) => {
  await page.getByRole('button', { name: `Actions for ${name}` }).click();
  const menu = page.getByRole('menu', { name: `Actions for ${name}` });
  const items = await menu.getByRole('menuitem').allTextContents();
  await page.keyboard.press('Escape');
  await menu.waitFor({ state: 'detached' });
  return items;
};

async function upload(page: Page, name: string, text: string) {
  writeFileSync(`${inputs}${name}`, text);
  await page.getByTestId('file-picker').setInputFiles([`${inputs}${name}`]);
  await page
    .locator('.tray li.upload')
    .filter({ hasText: name })
    .locator('.upload-state[data-state="done"]')
    .last()
    .waitFor({ timeout: 60_000 });
  await rowOf(page, name).waitFor();
}

/** Shares with `email` as `role` in the open dialog; resolves to what the dialog says then. */
async function shareIn(page: Page, dialogName: string, email: string, role: 'viewer' | 'editor') {
  const dialog = page.getByRole('dialog', { name: dialogName });
  const status = dialog.getByRole('status');
  const before = await status.textContent();
  await dialog.getByLabel('Email address').fill(email);
  await dialog.getByLabel('Role', { exact: true }).selectOption(role);
  await dialog.getByRole('button', { name: /^Share/ }).click();
  await expect.poll(() => status.textContent(), { timeout: 10_000 }).not.toBe(before);
  return status.textContent();
}

describe('sharing folders and files with people', () => {
  let stack: Stack;
  let olga: Page;
  let eddie: Page;
  let vera: Page;
  let eddieEmail: string;
  let veraEmail: string;
  const stranger = `newcomer-${Date.now()}@example.com`;
  const errors: string[][] = [];

  beforeAll(async () => {
    mkdirSync(inputs, { recursive: true });
    mkdirSync(shots, { recursive: true });
    stack = await startStack();
    const page = async () => (await stack.newContext()).newPage();
    olga = await page();
    eddie = await page();
    vera = await page();
    for (const p of [olga, eddie, vera]) errors.push(watchErrors(p));
    await signUpNewUser(olga, stack, 'Olga');
    eddieEmail = (await signUpNewUser(eddie, stack, 'Eddie')).email;
    veraEmail = (await signUpNewUser(vera, stack, 'Vera')).email;

    // Olga's drive: a folder "Team" with a note, and a file at her root.
    await olga.getByRole('button', { name: 'New folder' }).click();
    const create = olga.getByRole('dialog', { name: 'New folder' });
    await create.getByLabel('Folder name').fill('Team');
    await create.getByRole('button', { name: 'Create' }).click();
    await rowOf(olga, 'Team').waitFor();
    await upload(olga, 'solo.txt', 'Just for Vera.\n');
    await olga.getByRole('button', { name: /^Team, Folder/ }).click();
    await olga.getByRole('heading', { name: 'Team' }).waitFor();
    await upload(olga, 'notes.txt', 'Meeting notes.\n');
    await olga.goto(`${stack.site.url}/files`);
    await rowOf(olga, 'Team').waitFor();
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('shares a folder from its menu and several items from the selection bar', async () => {
    await olga.getByRole('button', { name: 'Actions for Team' }).click();
    await olga.getByRole('menuitem', { name: 'Share' }).click();
    const said = await shareIn(olga, 'Share “Team”', eddieEmail, 'editor');
    expect(said).toBe(`Shared with ${eddieEmail} as Editor.`);
    const dialog = olga.getByRole('dialog', { name: 'Share “Team”' });
    // An address without an account: a pending invitation.
    expect(await shareIn(olga, 'Share “Team”', stranger, 'viewer')).toBe(
      `Invitation sent to ${stranger}.`,
    );
    const people = dialog.getByRole('list', { name: 'People with access' });
    await people
      .locator(`li[data-email="${stranger}"]`)
      .getByText(/Invitation sent/)
      .waitFor();
    const eddieRow = people.locator(`li[data-email="${eddieEmail}"]`);
    expect(await eddieRow.textContent()).toContain('Eddie');
    expect(await eddieRow.textContent()).toContain('Added by Olga');
    expect(await dialog.getByLabel(`Role of ${eddieEmail}`).inputValue()).toBe('editor');
    expect(await people.locator('li').first().textContent()).toMatch(/^Olga \(you\).*Owner/);
    await olga.screenshot({ path: `${shots}people-dialog.png` });
    await expectAccessible(olga, 'the share dialog with people');
    await dialog.getByRole('button', { name: 'Close' }).click();
    await dialog.waitFor({ state: 'detached' });

    // Vera gets the folder and the root file at once, as a Viewer.
    await olga.getByLabel('Select Team').check();
    await olga.getByLabel('Select solo.txt').check();
    await olga
      .getByRole('toolbar', { name: 'Selection actions' })
      .getByRole('button', { name: 'Share' })
      .click();
    expect(await shareIn(olga, 'Share 2 items', veraEmail, 'viewer')).toBe(
      `Shared 2 items with ${veraEmail} as Viewer.`,
    );
    await olga
      .getByRole('dialog', { name: 'Share 2 items' })
      .getByRole('button', { name: 'Close' })
      .click();
    await olga.keyboard.press('Escape');
  });

  it('lists what is shared with a Viewer, who can open, preview and download only', async () => {
    await vera.reload();
    await vera.getByRole('toolbar', { name: 'Folder actions' }).waitFor();
    // A root-level item shared with me is not in My files.
    await vera.getByText('This folder is empty.', { exact: false }).waitFor();
    expect(await names(vera)).toEqual([]);

    await vera
      .getByRole('navigation', { name: 'Drive' })
      .getByRole('link', { name: 'Shared with me' })
      .click();
    await vera.getByRole('heading', { name: 'Shared with me' }).waitFor();
    await expect.poll(() => names(vera), { timeout: 10_000 }).toEqual(['Team', 'solo.txt']);
    const team = await rowOf(vera, 'Team').textContent();
    expect(team).toContain('Olga · Viewer');
    expect(await vera.locator('.list-head').textContent()).toContain('Shared');
    expect(await menuItems(vera, 'solo.txt')).toEqual([
      'Preview',
      'Download',
      'Share',
      'Activity',
      'Versions',
    ]);
    await vera.screenshot({ path: `${shots}shared-with-me.png` });
    await expectAccessible(vera, 'Shared with me');

    await vera.getByRole('button', { name: /^Team, Olga · Viewer/ }).click();
    const crumbs = vera.getByRole('navigation', { name: 'Breadcrumbs' });
    await crumbs.getByRole('link', { name: 'Shared with me' }).waitFor();
    expect(await crumbs.getByRole('link', { name: 'My files' }).count()).toBe(0);
    // The page knows Vera's role here (from her grants): view only.
    await vera.getByRole('heading', { name: 'Team (shared with you, view only)' }).waitFor();
    await rowOf(vera, 'notes.txt').waitFor();
    expect(await menuItems(vera, 'notes.txt')).toEqual([
      'Preview',
      'Download',
      'Share',
      'Activity',
      'Versions',
    ]);
    for (const button of ['Upload files', 'Upload folder', 'New folder']) {
      expect(await vera.getByRole('button', { name: button }).count()).toBe(0);
    }
    await vera.getByLabel('Select notes.txt').check();
    const bar = vera.getByRole('toolbar', { name: 'Selection actions' });
    expect(await bar.getByRole('button').allTextContents()).toEqual([
      'Preview',
      'Download',
      'Share',
      'Clear selection',
    ]);
    // Nor do its keys: F2 (rename) and Delete (move to Trash) do nothing here.
    await vera.getByRole('button', { name: /^notes\.txt, / }).focus();
    await vera.keyboard.press('F2');
    await vera.keyboard.press('Delete');
    expect(await vera.getByRole('dialog').count()).toBe(0);
    expect(await names(vera)).toEqual(['notes.txt']);
    await bar.getByRole('button', { name: 'Clear selection' }).click();

    await vera.getByRole('button', { name: /^notes\.txt, / }).click();
    const preview = vera.getByRole('dialog', { name: 'notes.txt' });
    await preview.getByText('Meeting notes.').waitFor();
    await preview.getByRole('button', { name: 'Close' }).click();
    await vera.getByRole('button', { name: 'Actions for notes.txt' }).click();
    const [download] = await Promise.all([
      vera.waitForEvent('download', { timeout: 30_000 }),
      vera.getByRole('menuitem', { name: 'Download' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('notes.txt');

    // The Share dialog shows a Viewer who has access, and lets them leave; nothing else.
    await vera.getByRole('button', { name: 'Actions for notes.txt' }).click();
    await vera.getByRole('menuitem', { name: 'Share' }).click();
    const dialog = vera.getByRole('dialog', { name: 'Share “notes.txt”' });
    const people = dialog.getByRole('list', { name: 'People with access' });
    await people
      .locator(`li[data-email="${veraEmail}"]`)
      .getByText(/Inherited from “Team”/)
      .waitFor();
    expect(await dialog.getByLabel('Email address').count()).toBe(0);
    expect(await dialog.getByRole('combobox').count()).toBe(0);
    expect(await dialog.getByRole('button', { name: 'Create link' }).count()).toBe(0);
    await dialog.getByRole('button', { name: 'Close' }).click();

    // The server refuses a Viewer's rename, whatever the page offers.
    const id = await notesId();
    const answer = await vera.evaluate(
      async ({ url, anonKey, id }) => {
        const key = Object.keys(localStorage).find((k) => k.includes('auth'));
        const token = key ? JSON.parse(localStorage.getItem(key) ?? '{}').access_token : '';
        const res = await fetch(`${url}/rest/v1/files?id=eq.${id}`, {
          method: 'PATCH',
          headers: {
            apikey: anonKey,
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
            prefer: 'return=representation',
          },
          body: JSON.stringify({ name: 'taken-over.txt' }),
        });
        return { status: res.status, body: await res.json() };
      },
      { url: stack.server.url, anonKey: stack.server.anonKey, id },
    );
    expect(answer).toEqual({ status: 200, body: [] });
    expect(await fileName(id)).toBe('notes.txt');
  });

  async function notesId(): Promise<string> {
    const r = await stack.server.db.query<{ id: string }>(
      `select id from public.files where name = 'notes.txt'`,
    );
    return r.rows[0]?.id ?? '';
  }
  async function fileName(id: string) {
    const r = await stack.server.db.query<{ name: string }>(
      'select name from public.files where id = $1',
      [id],
    );
    return r.rows[0]?.name;
  }

  it('lets an Editor upload and rename in the shared folder, which the owner sees', async () => {
    await eddie.goto(`${stack.site.url}/shared`);
    await eddie.getByRole('button', { name: /^Team, Olga · Editor/ }).click();
    await rowOf(eddie, 'notes.txt').waitFor();
    await expect
      .poll(() => menuItems(eddie, 'notes.txt'), { timeout: 10_000 })
      .toEqual([
        'Preview',
        'Download',
        'Share',
        'Activity',
        'Versions',
        'Rename',
        'Move',
        'Move to Trash',
      ]);
    await upload(eddie, 'from-eddie.txt', 'Added by Eddie.\n');
    // Moving Olga's items: only within her folders Eddie edits, never to his own My files.
    await eddie.getByRole('button', { name: 'Actions for from-eddie.txt' }).click();
    await eddie.getByRole('menuitem', { name: 'Move', exact: true }).click();
    const move = eddie.getByRole('dialog', { name: 'Move “from-eddie.txt”' });
    await move.getByLabel('Destination').waitFor();
    const places = await move.getByLabel('Destination').locator('option').allTextContents();
    expect(places.map((p) => p.trim())).toEqual(['Team']);
    await move.getByRole('button', { name: 'Cancel' }).click();
    await move.waitFor({ state: 'detached' });
    await eddie.getByLabel('Select notes.txt').check();
    await eddie
      .getByRole('toolbar', { name: 'Selection actions' })
      .getByRole('button', { name: 'Rename' })
      .click();
    const rename = eddie.getByRole('dialog', { name: 'Rename file' });
    await rename.getByLabel('New name').fill('minutes.txt');
    await rename.getByRole('button', { name: 'Rename' }).click();
    await rowOf(eddie, 'minutes.txt').waitFor();

    await olga.getByRole('button', { name: /^Team, Folder/ }).click();
    await olga.reload();
    await expect
      .poll(() => names(olga), { timeout: 10_000 })
      .toEqual(['from-eddie.txt', 'minutes.txt']);
  });

  it('changes a role, removes an invitation and makes an Editor the owner', async () => {
    await olga.goto(`${stack.site.url}/files`);
    await olga.getByRole('button', { name: 'Actions for Team' }).click();
    await olga.getByRole('menuitem', { name: 'Share' }).click();
    const dialog = olga.getByRole('dialog', { name: 'Share “Team”' });
    const status = dialog.getByRole('status');
    await dialog.getByLabel(`Role of ${veraEmail}`).selectOption('editor');
    await expect.poll(() => status.textContent()).toBe('Vera is now an Editor.');
    await dialog.getByRole('button', { name: `Remove ${stranger}` }).click();
    await expect.poll(() => status.textContent()).toBe(`Removed ${stranger}.`);
    const people = dialog.getByRole('list', { name: 'People with access' });
    await people.locator(`li[data-email="${stranger}"]`).waitFor({ state: 'detached' });
    expect(
      await stack.server.db.query(`select 1 from public.grants where email = $1`, [stranger]),
    ).toMatchObject({ rows: [] });

    await dialog.getByRole('button', { name: `Make owner: ${eddieEmail}` }).click();
    const confirm = olga.getByRole('dialog', { name: 'Make owner' });
    expect(await confirm.textContent()).toContain('You stay an Editor');
    await expectAccessible(olga, 'the make-owner confirmation');
    await confirm.getByRole('button', { name: 'Make owner' }).click();
    await dialog.waitFor({ state: 'detached' });
    await olga
      .getByRole('status')
      .filter({ hasText: '“Team” now belongs to Eddie. You are an Editor of it.' })
      .waitFor();
    await expect.poll(() => names(olga), { timeout: 10_000 }).toEqual(['solo.txt']);

    await eddie.goto(`${stack.site.url}/files`);
    await expect.poll(() => names(eddie), { timeout: 10_000 }).toEqual(['Team']);
    await olga.goto(`${stack.site.url}/shared`);
    await olga.getByRole('button', { name: /^Team, Eddie · Editor/ }).waitFor();
  });

  it('lets a Viewer leave what was shared with them', async () => {
    await vera.goto(`${stack.site.url}/shared`);
    await vera.getByRole('button', { name: 'Actions for solo.txt' }).click();
    await vera.getByRole('menuitem', { name: 'Share' }).click();
    await vera
      .getByRole('dialog', { name: 'Share “solo.txt”' })
      .getByRole('button', { name: 'Leave' })
      .click();
    const confirm = vera.getByRole('dialog', { name: 'Leave' });
    expect(await confirm.textContent()).toContain('You will no longer see it');
    await confirm.getByRole('button', { name: 'Leave' }).click();
    await expect.poll(() => names(vera), { timeout: 10_000 }).toEqual(['Team']);
    const left = await stack.server.db.query(
      `select 1 from public.grants g join public.files f on f.id = g.file_id
        where f.name = 'solo.txt'`,
    );
    expect(left.rows).toEqual([]);
  });

  it('threw no uncaught error in any page', () => {
    expect(errors).toEqual([[], [], []]);
  });
});
