/**
 * A folder shared with two people, live: Olga owns "Team" and shares it with Ed (Editor) and
 * Vi (Viewer), each in their own browser context. What one of them does in the folder
 * (upload, rename, move out, move to the Trash) shows for the others without a reload; each
 * sees who else is looking at the folder; the Activity panel says who did what; an Editor's
 * deletion is in the owner's Trash (with who did it) and in the Editor's own Trash ("Trashed
 * by you") until restored; losing access takes the folder off the person's screen at once.
 * Sharing itself goes through the `share_with` rpc (REST, as the owner).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from './axe';
import { type Stack, signUpNewUser, startStack, watchErrors } from './stack';

const inputs = fileURLToPath(new URL('../.artifacts/inputs/shared-live/', import.meta.url));
const shots = fileURLToPath(new URL('../.artifacts/screenshots/', import.meta.url));

const rowOf = (page: Page, name: string) => page.locator(`.rows li[data-name="${name}"]`);
const names = (page: Page) =>
  page
    .locator('.rows li[data-name]')
    .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-name') ?? '').sort());
/** Waits until `page` lists exactly `expected` (it arrives live: no reload in between). */
const shows = (page: Page, expected: string[]) =>
  expect.poll(() => names(page), { timeout: 10_000 }).toEqual([...expected].sort());
const toast = (page: Page, text: string) =>
  page.getByRole('region', { name: 'Notifications' }).locator('li', { hasText: text });
const alsoHere = (page: Page) => page.locator('.here-too');

async function upload(page: Page, name: string, text: string) {
  writeFileSync(`${inputs}${name}`, text);
  await page.getByTestId('file-picker').setInputFiles([`${inputs}${name}`]);
  await page
    .locator('.tray li.upload')
    .filter({ hasText: name })
    .locator('.upload-state[data-state="done"]')
    .waitFor({ timeout: 30_000 });
  await rowOf(page, name).waitFor();
}
async function selectionAction(page: Page, name: string, action: string) {
  await page.getByLabel(`Select ${name}`).check();
  await page
    .getByRole('toolbar', { name: 'Selection actions' })
    .getByRole('button', { name: action, exact: true })
    .click();
}
async function menu(page: Page, name: string, item: string) {
  await page.getByRole('button', { name: `Actions for ${name}` }).click();
  const m = page.getByRole('menu', { name: `Actions for ${name}` });
  await m.waitFor();
  await m.getByRole('menuitem', { name: item, exact: true }).click();
}
async function menuItems(page: Page, name: string): Promise<string[]> {
  await page.getByRole('button', { name: `Actions for ${name}` }).click();
  const m = page.getByRole('menu', { name: `Actions for ${name}` });
  await m.waitFor();
  const items = await m.getByRole('menuitem').allTextContents();
  await page.keyboard.press('Escape');
  await m.waitFor({ state: 'detached' });
  return items;
}

describe('a shared folder, live, for three people', () => {
  let stack: Stack;
  const people = {} as Record<'olga' | 'ed' | 'vi', { page: Page; email: string; pw: string }>;
  const errors: string[][] = [];
  let team: string;
  let viGrant: string;

  /** Calls an rpc through REST as `who` (the page's own session is not needed for it). */
  async function rpc<T>(who: 'olga', name: string, args: Record<string, unknown>): Promise<T> {
    const { url, anonKey } = stack.server;
    const session = await fetch(`${url}/auth/v1/token?grant_type=password`, {
      method: 'POST',
      headers: { apikey: anonKey, 'content-type': 'application/json' },
      body: JSON.stringify({ email: people[who].email, password: people[who].pw }),
    });
    const { access_token } = (await session.json()) as { access_token: string };
    const res = await fetch(`${url}/rest/v1/rpc/${name}`, {
      method: 'POST',
      headers: {
        apikey: anonKey,
        authorization: `Bearer ${access_token}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify(args),
    });
    const body = await res.text();
    expect(res.status, body).toBeLessThan(300);
    return (body ? JSON.parse(body) : null) as T;
  }

  beforeAll(async () => {
    mkdirSync(inputs, { recursive: true });
    mkdirSync(shots, { recursive: true });
    stack = await startStack();
    for (const [key, name] of [
      ['olga', 'Olga'],
      ['ed', 'Ed'],
      ['vi', 'Vi'],
    ] as const) {
      const page = await (await stack.newContext()).newPage();
      errors.push(watchErrors(page));
      const { email, password } = await signUpNewUser(page, stack, name);
      people[key] = { page, email, pw: password };
    }
    const olga = people.olga.page;
    await olga.getByRole('button', { name: 'New folder' }).click();
    const dialog = olga.getByRole('dialog', { name: 'New folder' });
    await dialog.getByLabel('Folder name').fill('Team');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await rowOf(olga, 'Team').waitFor();
    await olga.getByRole('button', { name: /^Team, Folder/ }).click();
    await olga.waitForURL(/\/files\/[0-9a-f-]{36}$/);
    team = olga.url().split('/files/')[1] as string;
    await upload(olga, 'notes.txt', 'Notes for the team.\n');
    await upload(olga, 'budget.txt', 'Budget.\n');
    await rpc('olga', 'share_with', {
      p_kind: 'folder',
      p_id: team,
      p_email: people.ed.email,
      p_role: 'editor',
    });
    const vi = await rpc<Array<{ grant_id: string }>>('olga', 'share_with', {
      p_kind: 'folder',
      p_id: team,
      p_email: people.vi.email,
      p_role: 'viewer',
    });
    viGrant = vi[0]?.grant_id as string;
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('shows who else is looking at the folder, and no longer once they leave', async () => {
    const { olga } = { olga: people.olga.page };
    for (const p of [people.ed.page, people.vi.page]) {
      await p.goto(`${stack.site.url}/files/${team}`);
      await shows(p, ['budget.txt', 'notes.txt']);
    }
    await expect.poll(() => alsoHere(olga).textContent()).toBe('Also here: Ed, Vi');
    await expect.poll(() => alsoHere(people.ed.page).textContent()).toBe('Also here: Olga, Vi');
    expect(await alsoHere(olga).getAttribute('role')).toBe('status');
    // Vi goes to her own files: gone from the others' view of the folder.
    await people.vi.page
      .getByRole('navigation', { name: 'Drive' })
      .getByRole('link', { name: 'My files' })
      .click();
    await expect.poll(() => alsoHere(olga).textContent()).toBe('Also here: Ed');
    await people.vi.page.goto(`${stack.site.url}/files/${team}`);
    await expect.poll(() => alsoHere(olga).textContent()).toBe('Also here: Ed, Vi');
  });

  it('brings each change in the folder to the others without a reload', async () => {
    const { olga, ed, vi } = {
      olga: people.olga.page,
      ed: people.ed.page,
      vi: people.vi.page,
    };
    // The Editor uploads: the owner and the Viewer see it.
    await upload(ed, 'draft.txt', 'A first draft.\n');
    await shows(olga, ['budget.txt', 'draft.txt', 'notes.txt']);
    await shows(vi, ['budget.txt', 'draft.txt', 'notes.txt']);
    // The Editor renames.
    await selectionAction(ed, 'draft.txt', 'Rename');
    const rename = ed.getByRole('dialog', { name: /^Rename / });
    await rename.getByLabel('New name').fill('plan.txt');
    await rename.getByRole('button', { name: 'Rename' }).click();
    await rename.waitFor({ state: 'detached' });
    await shows(olga, ['budget.txt', 'notes.txt', 'plan.txt']);
    await shows(vi, ['budget.txt', 'notes.txt', 'plan.txt']);
    // The owner moves a file out of the shared folder: it leaves the others' screens.
    await selectionAction(olga, 'budget.txt', 'Move');
    const move = olga.getByRole('dialog', { name: /^Move / });
    await move.getByLabel('Destination').selectOption({ label: 'My files' });
    await move.getByRole('button', { name: 'Move' }).click();
    await move.waitFor({ state: 'detached' });
    await shows(ed, ['notes.txt', 'plan.txt']);
    await shows(vi, ['notes.txt', 'plan.txt']);
    // The Editor moves a file to the Trash.
    await selectionAction(ed, 'notes.txt', 'Move to Trash');
    await toast(ed, 'moved to Trash').waitFor();
    await shows(olga, ['plan.txt']);
    await shows(vi, ['plan.txt']);
  });

  it('says in the Activity panel who did what', async () => {
    const olga = people.olga.page;
    await olga
      .getByRole('toolbar', { name: 'Folder actions' })
      .getByRole('button', { name: 'Activity' })
      .click();
    const panel = olga.getByRole('dialog', { name: 'Activity of “Team”' });
    const entries = panel.getByRole('list', { name: 'Activity, newest first' }).locator('li');
    await entries.first().waitFor();
    const lines = async () =>
      (await entries.locator('span').allTextContents()).map((t) => t.trim());
    await expect
      .poll(lines)
      .toEqual(
        expect.arrayContaining([
          'You created the folder “Team”',
          'You uploaded “notes.txt”',
          `You shared “Team” with ${people.ed.email} as Editor`,
          `You shared “Team” with ${people.vi.email} as Viewer`,
          'Ed uploaded “draft.txt”',
          'Ed renamed “draft.txt” to “plan.txt”',
          'Ed moved “notes.txt” to the Trash',
        ]),
      );
    // Each entry says when, with the exact time on hover.
    const time = entries.first().locator('time');
    expect(await time.textContent()).toMatch(/now|ago/);
    expect(await time.getAttribute('title')).toMatch(/\d/);
    await olga.screenshot({ path: `${shots}shared-activity.png` });
    await expectAccessible(olga, 'the Activity panel');

    // Refreshed while open: the Editor renames again.
    const ed = people.ed.page;
    await selectionAction(ed, 'plan.txt', 'Rename');
    const rename = ed.getByRole('dialog', { name: /^Rename / });
    await rename.getByLabel('New name').fill('plan-v2.txt');
    await rename.getByRole('button', { name: 'Rename' }).click();
    await rename.waitFor({ state: 'detached' });
    await expect.poll(lines).toContain('Ed renamed “plan.txt” to “plan-v2.txt”');
    await panel.getByRole('button', { name: 'Close' }).first().click();
    await panel.waitFor({ state: 'detached' });

    // One file's activity, from its menu (the Viewer's).
    const vi = people.vi.page;
    await rowOf(vi, 'plan-v2.txt').waitFor();
    await menu(vi, 'plan-v2.txt', 'Activity');
    const own = vi.getByRole('dialog', { name: 'Activity of “plan-v2.txt”' });
    await expect
      .poll(async () => (await own.locator('li span').allTextContents()).map((t) => t.trim()))
      .toEqual([
        'Ed renamed “plan.txt” to “plan-v2.txt”',
        'Ed renamed “draft.txt” to “plan.txt”',
        'Ed uploaded “draft.txt”',
      ]);
    await own.getByRole('button', { name: 'Close' }).first().click();
  });

  it('keeps an Editor’s deletion in the owner’s Trash, says who did it, and lets the Editor restore it', async () => {
    const { olga, ed } = { olga: people.olga.page, ed: people.ed.page };
    await olga
      .getByRole('navigation', { name: 'Drive' })
      .getByRole('link', { name: 'Trash' })
      .click();
    await rowOf(olga, 'notes.txt').waitFor();
    await expect
      .poll(() => rowOf(olga, 'notes.txt').locator('.c-date').textContent())
      .toContain('Trashed by Ed');
    expect(await menuItems(olga, 'notes.txt')).toEqual(['Restore', 'Delete forever']);

    await ed
      .getByRole('navigation', { name: 'Drive' })
      .getByRole('link', { name: 'Trash' })
      .click();
    await rowOf(ed, 'notes.txt').waitFor();
    expect(await rowOf(ed, 'notes.txt').locator('.c-date').textContent()).toContain(
      'Trashed by you',
    );
    // Where it was: the owner's folder, not the Editor's My files.
    expect(await rowOf(ed, 'notes.txt').locator('.c-type').textContent()).toBe('Team');
    // Delete forever is the owner's: not offered to the Editor, nor is Empty Trash.
    expect(await menuItems(ed, 'notes.txt')).toEqual(['Restore']);
    expect(await ed.getByRole('button', { name: 'Empty Trash' }).isDisabled()).toBe(true);
    await ed.screenshot({ path: `${shots}shared-trash.png` });
    await expectAccessible(ed, 'the Trash with a shared item');

    await menu(ed, 'notes.txt', 'Restore');
    await toast(ed, 'Restored “notes.txt” to “Team”.').waitFor();
    await rowOf(ed, 'notes.txt').waitFor({ state: 'detached' });
    await rowOf(olga, 'notes.txt').waitFor({ state: 'detached' });
    await ed.goto(`${stack.site.url}/files/${team}`);
    await shows(ed, ['notes.txt', 'plan-v2.txt']);
    await olga.goto(`${stack.site.url}/files/${team}`);
    await shows(olga, ['notes.txt', 'plan-v2.txt']);
  });

  it('takes the folder off the screen of someone whose access is removed, and says so', async () => {
    const { olga, vi } = { olga: people.olga.page, vi: people.vi.page };
    await shows(vi, ['notes.txt', 'plan-v2.txt']);
    await expect.poll(() => alsoHere(olga).textContent()).toContain('Vi');
    // She is looking at a file of it.
    await menu(vi, 'notes.txt', 'Preview');
    const preview = vi.getByRole('dialog', { name: 'notes.txt' });
    await preview.waitFor();
    await rpc('olga', 'unshare', { p_grant: viGrant });
    await toast(vi, 'You no longer have access to “Team”.').waitFor();
    await preview.waitFor({ state: 'detached' });
    await expect.poll(() => vi.url()).not.toContain(team);
    await shows(vi, []);
    expect(await rowOf(vi, 'Team').count()).toBe(0);
    // Gone from the owner's "also here" as well (Vi left the folder).
    await expect.poll(() => alsoHere(olga).textContent()).toBe('Also here: Ed');
    // The owner stays in the folder: the same event reached her, and she keeps access.
    expect(olga.url()).toContain(team);
    await shows(olga, ['notes.txt', 'plan-v2.txt']);
    for (const list of errors) expect(list).toEqual([]);
  });
});
