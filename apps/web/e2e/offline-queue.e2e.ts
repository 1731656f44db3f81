/**
 * Changes made offline, as a new user makes them with the browser's own offline mode
 * (`context.setOffline`): a rename, a new folder and a move are kept on this device, shown at
 * once (marked as waiting, kept across a reload), saved on reconnect; a change that no longer
 * fits — the item was renamed elsewhere meanwhile — waits for the user's decision.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from './axe';
import { controlled, namesIn, newFolder } from './drive-helpers';
import { type Stack, signUpNewUser, startStack, watchErrors } from './stack';
import { rowOf } from './upload-helpers';

const waiting = (page: Page) => page.locator('.rows li:has(.sync-mark)');

async function rename(page: Page, from: string, to: string, kind: 'file' | 'folder') {
  await page.getByLabel(`Select ${from}`).check();
  await page
    .getByRole('toolbar', { name: 'Selection actions' })
    .getByRole('button', { name: 'Rename' })
    .click();
  const dialog = page.getByRole('dialog', { name: `Rename ${kind}` });
  await dialog.getByLabel('New name').fill(to);
  await dialog.getByRole('button', { name: 'Rename' }).click();
  await dialog.waitFor({ state: 'detached' });
  await rowOf(page, to).waitFor();
}

describe('changes made offline', () => {
  let stack: Stack;
  let context: BrowserContext;
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    stack = await startStack();
    context = await stack.newContext();
    page = await context.newPage();
    errors = watchErrors(page);
    await signUpNewUser(page, stack);
    await controlled(page);
    await newFolder(page, 'Archive');
    await newFolder(page, 'Docs');
    await page.getByTestId('file-picker').setInputFiles([
      { name: 'draft.txt', mimeType: 'text/plain', buffer: Buffer.from('First draft.') },
      { name: 'plan.txt', mimeType: 'text/plain', buffer: Buffer.from('The plan.') },
    ]);
    await rowOf(page, 'plan.txt').waitFor();
    // Archive's own list, seen once, so a move into it shows there offline too.
    await page.getByRole('button', { name: /^Archive, Folder/ }).click();
    await page.waitForURL(/\/files\/[0-9a-f-]{36}$/);
    await page.getByText('This folder is empty.', { exact: false }).waitFor();
    await page
      .getByRole('navigation', { name: 'Breadcrumbs' })
      .getByRole('link', { name: 'My files' })
      .click();
    await rowOf(page, 'plan.txt').waitFor();
    // Kept for offline reading (saved within a second of the last answer).
    await page.waitForTimeout(1500);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('keeps a rename, a new folder and a move made offline, shown at once and across a reload', async () => {
    await context.setOffline(true);
    await rename(page, 'draft.txt', 'final.txt', 'file');
    await rename(page, 'plan.txt', 'plan-mine.txt', 'file');
    await newFolder(page, 'Made offline');
    await page.getByLabel('Select Docs').check();
    await page
      .getByRole('toolbar', { name: 'Selection actions' })
      .getByRole('button', { name: 'Move', exact: true })
      .click();
    const dialog = page.getByRole('dialog', { name: 'Move “Docs”' });
    await dialog.getByLabel('Destination').selectOption({ label: '\u00a0\u00a0Archive' });
    await dialog.getByRole('button', { name: 'Move' }).click();
    await dialog.waitFor({ state: 'detached' });
    await rowOf(page, 'Docs').waitFor({ state: 'detached' });

    expect(await namesIn(page)).toEqual(
      expect.arrayContaining(['Archive', 'Made offline', 'final.txt', 'plan-mine.txt']),
    );
    expect(await namesIn(page)).not.toContain('Docs');
    expect(await waiting(page).count()).toBe(3); // final.txt, plan-mine.txt, Made offline
    const status = page.getByRole('status').filter({ hasText: 'made offline wait' });
    expect(await status.textContent()).toBe(
      '4 changes made offline wait to be saved when you are back online.',
    );
    await expectAccessible(page, 'changes waiting offline');
    // The moved folder is in its new place, waiting too.
    await page.getByRole('button', { name: /^Archive, Folder/ }).click();
    await rowOf(page, 'Docs').locator('.sync-mark').waitFor();
    await page
      .getByRole('navigation', { name: 'Breadcrumbs' })
      .getByRole('link', { name: 'My files' })
      .click();
    await rowOf(page, 'final.txt').waitFor();

    // Still there after a reload, offline.
    await page.reload();
    await page.getByRole('toolbar', { name: 'Folder actions' }).waitFor();
    await rowOf(page, 'Made offline').waitFor();
    expect(await status.textContent()).toContain('4 changes');
    await page.getByRole('button', { name: /^Archive, Folder/ }).click();
    await rowOf(page, 'Docs').waitFor();
    expect(await waiting(page).count()).toBe(1);
    await page
      .getByRole('navigation', { name: 'Breadcrumbs' })
      .getByRole('link', { name: 'My files' })
      .click();
    await rowOf(page, 'final.txt').waitFor();

    // Nothing reached the backend yet.
    const rows = await stack.server.db.query<{ name: string }>(
      "select name from public.files union all select name from public.folders where name = 'Made offline'",
    );
    expect(rows.rows.map((r) => r.name).sort()).toEqual(['draft.txt', 'plan.txt']);
  });

  it('saves them on reconnect and asks about the one changed elsewhere meanwhile', async () => {
    // Another device renames plan.txt while this one is offline.
    await stack.server.db.query(
      "update public.files set name = 'plan-theirs.txt' where name = 'plan.txt'",
    );
    await context.setOffline(false);
    const conflicts = page.getByRole('region', {
      name: 'Changes made offline that need your decision',
    });
    await conflicts.waitFor();
    expect(await conflicts.locator('li p').allTextContents()).toEqual([
      '“plan.txt” was renamed to “plan-theirs.txt” elsewhere while you renamed it to “plan-mine.txt” offline.',
    ]);
    // Said once (a second run of the queue would say it again, at the same time).
    const saved = page.locator('.toast span').filter({ hasText: 'made offline are saved' });
    await saved.first().waitFor();
    await page.waitForTimeout(1500);
    expect(await saved.allTextContents()).toEqual(['The 3 changes made offline are saved.']);
    await expectAccessible(page, 'a change made offline that needs a decision');
    const files = await stack.server.db.query<{ name: string }>(
      'select name from public.files order by name',
    );
    expect(files.rows.map((r) => r.name)).toEqual(['final.txt', 'plan-theirs.txt']);
    const folders = await stack.server.db.query<{ name: string; parent: string | null }>(
      `select f.name, p.name as parent from public.folders f
         left join public.folders p on p.id = f.parent_id order by f.name`,
    );
    expect(folders.rows).toEqual([
      { name: 'Archive', parent: null },
      { name: 'Docs', parent: 'Archive' },
      { name: 'Made offline', parent: null },
    ]);

    await conflicts.getByRole('button', { name: 'Keep mine' }).click();
    await conflicts.waitFor({ state: 'detached' });
    await rowOf(page, 'plan-mine.txt').waitFor();
    const after = await stack.server.db.query<{ name: string }>(
      'select name from public.files order by name',
    );
    expect(after.rows.map((r) => r.name)).toEqual(['final.txt', 'plan-mine.txt']);
    expect(await waiting(page).count()).toBe(0);
    // Nothing left in this browser's queue, after a reload too.
    await page.reload();
    await rowOf(page, 'plan-mine.txt').waitFor();
    expect(await page.locator('.sync-conflicts').count()).toBe(0);
  });

  it('threw no uncaught error in the page', () => {
    expect(errors).toEqual([]);
  });
});
