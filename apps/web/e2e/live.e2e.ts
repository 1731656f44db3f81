/**
 * Live updates across devices: one user on two browser contexts (a laptop and a phone, the
 * phone's network going through a proxy the test can cut), and a second user on a third.
 * Every kind of change made on the laptop — create, rename, move, move to the Trash and delete
 * forever, of files and of folders, nested — shows on the phone without a reload; the phone catches up after being
 * offline and after being asleep; nothing of the second user ever shows, and the reverse.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from './axe';
import { newFolder } from './drive-helpers';
import { type NetProxy, startProxy } from './net-proxy';
import { type Stack, signIn, signUpNewUser, startStack, watchErrors } from './stack';
import { rowOf } from './upload-helpers';

const inputs = fileURLToPath(new URL('../.artifacts/inputs/live/', import.meta.url));
const shots = fileURLToPath(new URL('../.artifacts/screenshots/', import.meta.url));

const listed = (page: Page) =>
  page
    .locator('.rows li[data-name]')
    .evaluateAll((rows) =>
      rows.map((r) => `${r.getAttribute('data-kind')}:${r.getAttribute('data-name')}`).sort(),
    );
/** Waits until the list of `page` is exactly `expected` (kind:name, sorted). */
const shows = (page: Page, expected: string[]) =>
  expect.poll(() => listed(page), { timeout: 15_000 }).toEqual([...expected].sort());

/** Every name a page has ever rendered in its list (collected by an init script). */
async function recordNames(context: BrowserContext) {
  await context.addInitScript(() => {
    const seen = new Set<string>();
    (window as unknown as { __seen: Set<string> }).__seen = seen;
    new MutationObserver(() => {
      for (const row of document.querySelectorAll('.rows li[data-name]')) {
        seen.add(row.getAttribute('data-name') ?? '');
      }
    }).observe(document, { subtree: true, childList: true, attributes: true });
  });
}
const seenNames = (page: Page) =>
  page.evaluate(() => [...(window as unknown as { __seen: Set<string> }).__seen].sort());

// What the laptop does, as a user would do it.
async function upload(page: Page, name: string, text: string) {
  writeFileSync(`${inputs}${name}`, text);
  await page.getByTestId('file-picker').setInputFiles([`${inputs}${name}`]);
  await page
    .locator('.tray li.upload')
    .filter({ hasText: name })
    .locator('.upload-state[data-state="done"]')
    .waitFor({ timeout: 60_000 });
  await rowOf(page, name).waitFor();
}
async function selectionAction(page: Page, names: string[], action: string) {
  const clear = page.getByRole('button', { name: 'Clear selection' });
  if (await clear.isVisible()) await clear.click();
  for (const name of names) await page.getByLabel(`Select ${name}`).check();
  await page
    .getByRole('toolbar', { name: 'Selection actions' })
    .getByRole('button', { name: action, exact: true })
    .click();
}
async function rename(page: Page, from: string, to: string) {
  await selectionAction(page, [from], 'Rename');
  const dialog = page.getByRole('dialog', { name: /^Rename / });
  await dialog.getByLabel('New name').fill(to);
  await dialog.getByRole('button', { name: 'Rename' }).click();
  await dialog.waitFor({ state: 'detached' });
  await rowOf(page, to).waitFor();
}
async function move(page: Page, names: string[], destination: string) {
  await selectionAction(page, names, 'Move');
  const dialog = page.getByRole('dialog', { name: /^Move / });
  const select = dialog.getByLabel('Destination');
  await expect
    .poll(() => select.locator('option').allTextContents(), { timeout: 15_000 })
    .toContainEqual(expect.stringContaining(destination));
  const label = (await select.locator('option').allTextContents()).find(
    (o) => o.trim() === destination,
  );
  await select.selectOption({ label: label ?? destination });
  await dialog.getByRole('button', { name: 'Move' }).click();
  await dialog.waitFor({ state: 'detached' });
  for (const name of names) await rowOf(page, name).waitFor({ state: 'detached' });
}
/** Moves items to the Trash (an update of their rows; no confirmation, it can be undone). */
async function remove(page: Page, names: string[]) {
  await selectionAction(page, names, 'Move to Trash');
  for (const name of names) await rowOf(page, name).waitFor({ state: 'detached' });
}
/** Deletes a Trash entry forever (the rows are deleted). */
async function deleteForever(page: Page, name: string) {
  await page.getByRole('button', { name: new RegExp(`^${name.replace('.', '\\.')}, `) }).focus();
  await page.keyboard.press('Delete');
  const dialog = page.getByRole('dialog', { name: 'Delete forever' });
  await dialog.getByRole('button', { name: 'Delete forever' }).click();
  await dialog.waitFor({ state: 'detached' });
  await rowOf(page, name).waitFor({ state: 'detached' });
}
async function openFolder(page: Page, name: string) {
  await page.getByRole('button', { name: new RegExp(`^${name}, Folder`) }).click();
  await page
    .getByRole('navigation', { name: 'Breadcrumbs' })
    .locator('[aria-current="page"]', { hasText: name })
    .waitFor();
}
async function goHome(page: Page) {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Files' }).click();
  await page
    .getByRole('navigation', { name: 'Breadcrumbs' })
    .locator('[aria-current="page"]', { hasText: 'My files' })
    .waitFor();
}

describe('live updates across devices', () => {
  let stack: Stack;
  let proxy: NetProxy;
  let phoneContext: BrowserContext;
  let laptop: Page;
  let phone: Page;
  let stranger: Page;
  const errors: string[][] = [];

  beforeAll(async () => {
    mkdirSync(inputs, { recursive: true });
    mkdirSync(shots, { recursive: true });
    stack = await startStack();
    proxy = await startProxy(stack.server.url);
    const laptopContext = await stack.newContext();
    phoneContext = await stack.newContext({ backendUrl: proxy.url });
    const strangerContext = await stack.newContext();
    await recordNames(phoneContext);
    await recordNames(strangerContext);
    laptop = await laptopContext.newPage();
    phone = await phoneContext.newPage();
    stranger = await strangerContext.newPage();
    for (const page of [laptop, phone, stranger]) errors.push(watchErrors(page));
    const ada = await signUpNewUser(laptop, stack, 'Ada');
    await signIn(phone, stack, ada);
    await signUpNewUser(stranger, stack, 'Bob');
  });
  afterAll(async () => {
    await stack?.stop();
    await proxy?.close();
  });

  it('shows new folders and files from the other device', async () => {
    await newFolder(laptop, 'Projects');
    await shows(phone, ['folder:Projects']);
    await upload(laptop, 'notes.txt', 'first notes');
    await shows(phone, ['folder:Projects', 'file:notes.txt']);
  });

  it('shows renames of files and folders', async () => {
    await rename(laptop, 'notes.txt', 'notes-v2.txt');
    await shows(phone, ['folder:Projects', 'file:notes-v2.txt']);
    await rename(laptop, 'Projects', 'Work');
    await shows(phone, ['folder:Work', 'file:notes-v2.txt']);
  });

  it('shows a file moved into a folder on both sides of the move, and changes inside folders', async () => {
    await openFolder(phone, 'Work');
    await shows(phone, []);
    await move(laptop, ['notes-v2.txt'], 'Work');
    await shows(phone, ['file:notes-v2.txt']);
    await shows(laptop, ['folder:Work']);
    // Nested: a sub-folder made on the laptop, and a file uploaded into it.
    await openFolder(laptop, 'Work');
    await newFolder(laptop, '2026');
    await shows(phone, ['folder:2026', 'file:notes-v2.txt']);
    await openFolder(laptop, '2026');
    await openFolder(phone, '2026');
    await upload(laptop, 'plan.md', '# plan');
    await shows(phone, ['file:plan.md']);
  });

  it('shows files and a folder with everything in it going to the Trash, and deleted forever from it', async () => {
    await remove(laptop, ['plan.md']);
    await shows(phone, []);
    await goHome(laptop);
    await goHome(phone);
    await shows(phone, ['folder:Work']);
    await upload(laptop, 'keep.txt', 'keep');
    await shows(phone, ['folder:Work', 'file:keep.txt']);
    await remove(laptop, ['Work']);
    await shows(phone, ['file:keep.txt']);
    // Deleted for good from the Trash (rows deleted): gone from the phone's Trash view too.
    await phone.goto(`${stack.site.url}/trash`);
    await laptop.goto(`${stack.site.url}/trash`);
    await shows(phone, ['file:plan.md', 'folder:Work']);
    await deleteForever(laptop, 'plan.md');
    await shows(phone, ['folder:Work']);
    await deleteForever(laptop, 'Work');
    await shows(phone, []);
    const left = await stack.server.db.query<{ n: number }>(
      "select count(*)::int as n from public.folders where name in ('Work', '2026')",
    );
    expect(left.rows[0]?.n).toBe(0);
    await laptop.goto(`${stack.site.url}/files`);
    await phone.goto(`${stack.site.url}/files`);
    await shows(phone, ['file:keep.txt']);
  });

  it('shows a folder moved into another, and tells a device inside a folder moved to the Trash', async () => {
    await newFolder(laptop, 'Inbox');
    await newFolder(laptop, 'Archive');
    await shows(phone, ['folder:Inbox', 'folder:Archive', 'file:keep.txt']);
    await move(laptop, ['Inbox'], 'Archive');
    await shows(phone, ['folder:Archive', 'file:keep.txt']);
    await openFolder(phone, 'Archive');
    await shows(phone, ['folder:Inbox']);
    await openFolder(phone, 'Inbox');
    await remove(laptop, ['Archive']);
    await phone
      .getByRole('heading', { name: 'This folder is in the Trash' })
      .waitFor({ timeout: 15_000 });
    await phone.screenshot({ path: `${shots}live-deleted-folder.png` });
    await expectAccessible(phone, 'live deleted folder');
    await goHome(phone);
    await shows(phone, ['file:keep.txt']);
  });

  it('catches up after being offline', async () => {
    await shows(phone, ['file:keep.txt']);
    await phoneContext.setOffline(true);
    proxy.block();
    proxy.cut();
    await newFolder(laptop, 'Made offline');
    await remove(laptop, ['keep.txt']);
    await upload(laptop, 'offline.txt', 'while the phone was away');
    await phoneContext.setOffline(false);
    proxy.unblock();
    await shows(phone, ['folder:Made offline', 'file:offline.txt']);
  });

  it('catches up after being asleep', async () => {
    const cdp = await phoneContext.newCDPSession(phone);
    await cdp.send('Page.setWebLifecycleState', { state: 'frozen' });
    proxy.block();
    proxy.cut();
    await rename(laptop, 'offline.txt', 'slept.txt');
    await remove(laptop, ['Made offline']);
    await newFolder(laptop, 'Morning');
    proxy.unblock();
    await cdp.send('Page.setWebLifecycleState', { state: 'active' });
    await shows(phone, ['folder:Morning', 'file:slept.txt']);
    // …and live updates flow again afterwards.
    await newFolder(laptop, 'Afternoon');
    await shows(phone, ['folder:Afternoon', 'folder:Morning', 'file:slept.txt']);
  });

  it('never shows another user’s changes, either way', async () => {
    await newFolder(stranger, 'Bob only');
    await upload(stranger, 'bob.txt', 'bob');
    // Ordered after Bob's changes: once the phone shows this, Bob's would have arrived too.
    await newFolder(laptop, 'Evening');
    await shows(phone, ['folder:Afternoon', 'folder:Evening', 'folder:Morning', 'file:slept.txt']);
    await shows(stranger, ['folder:Bob only', 'file:bob.txt']);
    expect(await seenNames(stranger)).toEqual(['Bob only', 'bob.txt']);
    const phoneSaw = await seenNames(phone);
    expect(phoneSaw).not.toContain('Bob only');
    expect(phoneSaw).not.toContain('bob.txt');
  });

  it('threw no uncaught error in any page', () => {
    expect(errors).toEqual([[], [], []]);
  });
});
