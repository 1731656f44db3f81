import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from './axe';
import { namesIn } from './drive-helpers';
import { type Stack, signUpNewUser, startStack, watchErrors } from './stack';
import { readZip } from './zip-reader';

const artifacts = fileURLToPath(new URL('../.artifacts/', import.meta.url));
const shots = `${artifacts}screenshots/`;
const inputs = `${artifacts}inputs/`;
// A 2×2 red PNG.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVQI12P8z8DAwMDAxMDAwMDAAAANHQEDasKb6QAAAABJRU5ErkJggg==',
  'base64',
);

const row = (page: Page, name: string) => page.locator(`.rows li[data-name="${name}"]`);
/** The name of the row or card that has the focus. */
const focused = (page: Page) =>
  page.evaluate(() => document.activeElement?.closest('[data-name]')?.getAttribute('data-name'));
const selectionBar = (page: Page) => page.getByRole('toolbar', { name: 'Selection actions' });

describe('menus, selection, keyboard, zip downloads, Starred, Recent and the grid', () => {
  let stack: Stack;
  let page: Page;
  let errors: string[];
  const files = {
    'alpha.txt': Buffer.from('first file\n'),
    'beta.txt': Buffer.from('second file\n'),
    'red.png': PNG,
  };
  const inner = Buffer.from('inside the folder\n');

  beforeAll(async () => {
    mkdirSync(shots, { recursive: true });
    mkdirSync(inputs, { recursive: true });
    for (const [name, body] of Object.entries(files)) writeFileSync(`${inputs}${name}`, body);
    writeFileSync(`${inputs}inner.txt`, inner);
    stack = await startStack();
    page = await (await stack.newContext()).newPage();
    errors = watchErrors(page);
    await signUpNewUser(page, stack);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  async function upload(paths: string[]) {
    await page.getByTestId('file-picker').setInputFiles(paths.map((p) => `${inputs}${p}`));
    for (const p of paths) {
      await page
        .locator('.tray li.upload')
        .filter({ hasText: p })
        .locator('.upload-state[data-state="done"]')
        .waitFor({ timeout: 60_000 });
    }
  }

  it('sets up a folder with a file, and three files beside it', async () => {
    await page.getByRole('button', { name: 'New folder' }).click();
    const dialog = page.getByRole('dialog', { name: 'New folder' });
    await dialog.getByLabel('Folder name').fill('Docs');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('button', { name: /^Docs, Folder/ }).click();
    await page.getByRole('navigation', { name: 'Breadcrumbs' }).getByText('Docs').waitFor();
    await upload(['inner.txt']);
    await page.goto(`${stack.site.url}/files`);
    await upload(Object.keys(files));
    await expect
      .poll(() => namesIn(page), { timeout: 15_000 })
      .toEqual(['Docs', 'alpha.txt', 'beta.txt', 'red.png']);
  });

  it('opens a row’s menu with a right-click, where the pointer is', async () => {
    const box = await row(page, 'beta.txt').boundingBox();
    if (!box) throw new Error('no row');
    await page.mouse.click(box.x + 300, box.y + box.height / 2, { button: 'right' });
    const menu = page.getByRole('menu', { name: 'Actions for beta.txt' });
    await menu.waitFor();
    const at = await menu.boundingBox();
    expect(Math.abs((at?.x ?? 0) - (box.x + 300))).toBeLessThan(4);
    expect(await menu.getByRole('menuitem').allTextContents()).toEqual([
      'Preview',
      'Download',
      'Share',
      'Activity',
      'Versions',
      'Rename',
      'Move',
      'Add star',
      'Move to Trash',
    ]);
    // The first item has the focus; arrows move through the items.
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Preview');
    await page.keyboard.press('ArrowUp');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Move to Trash');
    await expectAccessible(page, 'a row menu');
    await page.screenshot({ path: `${shots}row-menu.png` });
    await page.keyboard.press('Escape');
    await menu.waitFor({ state: 'detached' });
  });

  it('opens the menu from the ⋯ button and gives the focus back when closed', async () => {
    const button = page.getByRole('button', { name: 'Actions for Docs' });
    await button.click();
    const menu = page.getByRole('menu', { name: 'Actions for Docs' });
    expect(await menu.getByRole('menuitem').allTextContents()).toEqual([
      'Open',
      'Download',
      'Share',
      'Activity',
      'Rename',
      'Move',
      'Add star',
      'Move to Trash',
    ]);
    await page.keyboard.press('Escape');
    await menu.waitFor({ state: 'detached' });
    expect(
      await button.evaluate(
        (el) => el === document.activeElement || el.contains(document.activeElement),
      ),
    ).toBe(true);
  });

  it('moves through the list with the arrow keys, Home and End; Enter opens', async () => {
    await page.getByRole('button', { name: /^Docs, Folder/ }).focus();
    await page.keyboard.press('ArrowDown');
    expect(await focused(page)).toBe('alpha.txt');
    await page.keyboard.press('ArrowDown');
    expect(await focused(page)).toBe('beta.txt');
    await page.keyboard.press('End');
    expect(await focused(page)).toBe('red.png');
    await page.keyboard.press('ArrowUp');
    expect(await focused(page)).toBe('beta.txt');
    await page.keyboard.press('Home');
    expect(await focused(page)).toBe('Docs');
    await page.keyboard.press('Enter');
    await page.getByRole('navigation', { name: 'Breadcrumbs' }).getByText('Docs').waitFor();
    await row(page, 'inner.txt').waitFor();
    await page.goBack();
    await row(page, 'red.png').waitFor();
  });

  it('selects everything with Ctrl+A and clears with Escape', async () => {
    await page.getByRole('button', { name: /^alpha\.txt, / }).focus();
    await page.keyboard.press('Control+a');
    await selectionBar(page).getByText('4 selected').waitFor();
    expect(await page.locator('.rows li.selected').count()).toBe(4);
    await expectAccessible(page, 'the folder with a selection');
    await page.keyboard.press('Escape');
    await selectionBar(page).waitFor({ state: 'detached' });
    expect(await page.locator('.rows li.selected').count()).toBe(0);
  });

  it('downloads a folder and a file as one zip, streamed by the service worker', async () => {
    await page.getByLabel('Select Docs').check();
    await page.getByLabel('Select alpha.txt').check();
    await selectionBar(page).getByText('2 selected').waitFor();
    const [download] = await Promise.all([
      page.waitForEvent('download', { timeout: 30_000 }),
      selectionBar(page).getByRole('button', { name: 'Download', exact: true }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('Drive download (2 items).zip');
    expect(download.url()).toMatch(/\/assets\/__zip\/[0-9a-f-]{36}$/);
    const zip = readZip(readFileSync(await download.path()));
    expect([...zip.keys()].sort()).toEqual(['Docs/', 'Docs/inner.txt', 'alpha.txt']);
    expect(zip.get('alpha.txt')?.equals(files['alpha.txt'])).toBe(true);
    expect(zip.get('Docs/inner.txt')?.equals(inner)).toBe(true);
    await selectionBar(page).getByRole('button', { name: 'Clear selection' }).click();
  });

  it('offers links for one selected file, and people for several items', async () => {
    await page.getByLabel('Select beta.txt').check();
    await selectionBar(page).getByRole('button', { name: 'Share' }).click();
    const dialog = page.getByRole('dialog', { name: 'Share “beta.txt”' });
    await dialog.getByRole('button', { name: 'Create link' }).click();
    await dialog.getByLabel('Share link').waitFor();
    await expectAccessible(page, 'the share dialog');
    await dialog.getByRole('button', { name: 'Close' }).click();
    await page.getByLabel('Select red.png').check();
    await selectionBar(page).getByText('2 selected').waitFor();
    await selectionBar(page).getByRole('button', { name: 'Share' }).click();
    const both = page.getByRole('dialog', { name: 'Share 2 items' });
    await both.getByLabel('Email address').waitFor();
    // Links are for one file: several items are shared with people only.
    expect(await both.getByRole('button', { name: 'Create link' }).count()).toBe(0);
    await both.getByRole('button', { name: 'Close' }).click();
    await both.waitFor({ state: 'detached' });
    await page.keyboard.press('Escape');
  });

  it('stars items, which the Starred view lists', async () => {
    await page.getByRole('button', { name: 'Actions for Docs' }).click();
    await page.getByRole('menuitem', { name: 'Add star' }).click();
    await page.getByRole('button', { name: 'Actions for beta.txt' }).click();
    await page.getByRole('menuitem', { name: 'Add star' }).click();
    await page.getByRole('button', { name: /^beta\.txt, Text, 12 B, starred, / }).waitFor();
    await page
      .getByRole('navigation', { name: 'Drive' })
      .getByRole('link', { name: 'Starred' })
      .click();
    await page.getByRole('heading', { name: 'Starred' }).waitFor();
    await expect.poll(() => namesIn(page), { timeout: 10_000 }).toEqual(['Docs', 'beta.txt']);
    await expectAccessible(page, 'the Starred view');
    await page.getByRole('button', { name: 'Actions for beta.txt' }).click();
    await page.getByRole('menuitem', { name: 'Remove star' }).click();
    await expect.poll(() => namesIn(page), { timeout: 10_000 }).toEqual(['Docs']);
  });

  it('lists what was opened last first in Recent', async () => {
    await page.goto(`${stack.site.url}/files`);
    await page.getByRole('button', { name: /^alpha\.txt, / }).click();
    const preview = page.getByRole('dialog', { name: 'alpha.txt' });
    await preview.getByText('first file').waitFor();
    await preview.getByRole('button', { name: 'Close' }).click();
    await page
      .getByRole('navigation', { name: 'Drive' })
      .getByRole('link', { name: 'Recent' })
      .click();
    await page.getByRole('heading', { name: 'Recent' }).waitFor();
    await expect.poll(async () => (await namesIn(page))[0], { timeout: 10_000 }).toBe('alpha.txt');
    expect((await namesIn(page)).sort()).toEqual(['alpha.txt', 'beta.txt', 'inner.txt', 'red.png']);
    expect(await row(page, 'inner.txt').locator('.c-type').textContent()).toBe('My files › Docs');
    await expectAccessible(page, 'the Recent view');
  });

  it('shows the folder as a grid of cards, kept after a reload, with arrow keys by line', async () => {
    await page.goto(`${stack.site.url}/files`);
    await page.getByRole('button', { name: 'Grid' }).click();
    await page.locator('.tiles li.tile[data-name="red.png"]').waitFor();
    await page.reload();
    await page.locator('.tiles li.tile[data-name="red.png"]').waitFor();
    expect(await page.getByRole('button', { name: 'Grid' }).getAttribute('aria-pressed')).toBe(
      'true',
    );
    await page.getByRole('button', { name: /^Docs, Folder/ }).focus();
    await page.keyboard.press('ArrowRight');
    expect(await focused(page)).toBe('alpha.txt');
    await page.keyboard.press('ArrowLeft');
    expect(await focused(page)).toBe('Docs');
    await expectAccessible(page, 'the grid view');
    await page.screenshot({ path: `${shots}grid.png` });
    await page.getByRole('button', { name: 'List' }).click();
    await page.locator('.rows li.row[data-name="red.png"]').waitFor();
  });

  it('threw no uncaught error in the page', () => {
    expect(errors).toEqual([]);
  });
});
