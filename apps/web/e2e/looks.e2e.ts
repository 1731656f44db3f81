import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, expectAccessible } from './axe';
import { type Stack, signIn, signUpNewUser, startStack, watchErrors } from './stack';

const shots = fileURLToPath(new URL('../.artifacts/screenshots/', import.meta.url));
const LONG = 'a'.repeat(300);
const LONGEST = `${'Quarterly report of the northern region '.repeat(7).slice(0, 251)}.pdf`;

const background = (page: Page) =>
  page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
const DARK = 'rgb(17, 19, 24)';
const LIGHT = 'rgb(247, 247, 248)';

describe('looks: theme, a 360 px screen, long names; accessibility checks that can fail', () => {
  let stack: Stack;
  let context: BrowserContext;
  let page: Page;
  let errors: string[];
  let user: { email: string; password: string };

  beforeAll(async () => {
    mkdirSync(shots, { recursive: true });
    stack = await startStack();
    context = await stack.newContext();
    page = await context.newPage();
    errors = watchErrors(page);
    user = await signUpNewUser(page, stack);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('the accessibility check finds a real violation (it is not a check that cannot fail)', async () => {
    await page.evaluate(() => {
      const img = document.createElement('img');
      img.id = 'axe-probe';
      img.src = 'data:image/gif;base64,R0lGODlhAQABAAAAACw=';
      document.body.append(img);
    });
    const found = await axeViolations(page);
    expect(found.map((v) => v.id)).toContain('image-alt');
    await page.evaluate(() => document.getElementById('axe-probe')?.remove());
    await expectAccessible(page, 'the empty folder');
  });

  it('says plainly when a name is too long, instead of cutting it', async () => {
    await page.getByRole('button', { name: 'New folder' }).click();
    const dialog = page.getByRole('dialog', { name: 'New folder' });
    const input = dialog.getByLabel('Folder name');
    await input.fill(LONG);
    expect((await input.inputValue()).length).toBe(300);
    const message = 'This name is too long: 300 characters. Names can have at most 255.';
    await dialog.getByText(message).waitFor();
    await dialog.getByRole('button', { name: 'Create' }).click();
    await dialog.getByText(message).waitFor();
    expect(await input.getAttribute('aria-invalid')).toBe('true');
    await expectAccessible(page, 'the new-folder dialog with a too-long name');
    await page.screenshot({ path: `${shots}name-too-long.png` });
    const none = await stack.server.db.query<{ n: number }>(
      'select count(*)::int as n from public.folders where char_length(name) > 255',
    );
    expect(none.rows[0]?.n).toBe(0);
    await input.fill(LONGEST);
    await dialog.getByText(message).waitFor({ state: 'detached' });
    await dialog.getByRole('button', { name: 'Create' }).click();
    await dialog.waitFor({ state: 'detached' });
  });

  it('ends a long name with “…” inside its row, with the full name on hover', async () => {
    const row = page.locator('.rows li[data-kind="folder"]').first();
    await row.waitFor();
    expect(LONGEST.length).toBe(255);
    expect(await row.getAttribute('data-name')).toBe(LONGEST);
    const fit = await row.evaluate((li) => {
      const text = li.querySelector<HTMLElement>('.name-text');
      const button = li.querySelector<HTMLElement>('.name-button');
      const menu = li.querySelector<HTMLElement>('.menu-button');
      const box = li.getBoundingClientRect();
      return {
        ellipsed: text ? text.scrollWidth > text.clientWidth : false,
        overflow: getComputedStyle(text as HTMLElement).textOverflow,
        title: button?.title,
        height: Math.round(box.height),
        rowFits: li.scrollWidth <= li.clientWidth,
        menuInside: menu ? menu.getBoundingClientRect().right <= box.right : false,
      };
    });
    expect(fit).toEqual({
      ellipsed: true,
      overflow: 'ellipsis',
      title: LONGEST,
      height: 44,
      rowFits: true,
      menuInside: true,
    });
  });

  it('switches between System, Light and Dark in Settings, kept after a reload', async () => {
    await page.emulateMedia({ colorScheme: 'light' });
    await page.getByRole('link', { name: 'Settings' }).click();
    const theme = page.getByRole('group', { name: 'Theme' });
    expect(await theme.getByLabel('System').isChecked()).toBe(true);
    expect(await background(page)).toBe(LIGHT);
    await theme.getByLabel('Dark').check();
    expect(await background(page)).toBe(DARK);
    await expectAccessible(page, 'Settings in the dark theme');
    await page.screenshot({ path: `${shots}settings-dark.png` });
    await page.reload();
    await theme.getByLabel('Dark').waitFor();
    expect(await theme.getByLabel('Dark').isChecked()).toBe(true);
    expect(await background(page)).toBe(DARK);
    // The pages of signed-out visitors too, from the first paint.
    const visitor = await context.newPage();
    await visitor.goto(`${stack.site.url}/s/${'0'.repeat(64)}`, { waitUntil: 'domcontentloaded' });
    expect(await visitor.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    await visitor.close();
    // Light wins over a dark system; System follows it.
    await page.emulateMedia({ colorScheme: 'dark' });
    await theme.getByLabel('Light').check();
    expect(await background(page)).toBe(LIGHT);
    await theme.getByLabel('System').check();
    expect(await background(page)).toBe(DARK);
    await page.goto(`${stack.site.url}/files`);
    await page.locator('.rows li').first().waitFor();
    await expectAccessible(page, 'the folder in the dark theme');
    await page.screenshot({ path: `${shots}files-dark.png` });
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('works on a screen 360 px wide: nothing wider than the screen, every action reachable', async () => {
    const narrow = await stack.newContext();
    const phone = await narrow.newPage();
    await phone.setViewportSize({ width: 360, height: 740 });
    await signIn(phone, stack, user);
    for (const path of ['/files', '/recent', '/starred', '/trash', '/settings']) {
      await phone.goto(`${stack.site.url}${path}`);
      await phone.locator('main h1').first().waitFor();
      await phone.waitForLoadState('networkidle');
      const width = await phone.evaluate(() => document.documentElement.scrollWidth);
      expect(width, path).toBeLessThanOrEqual(360);
      await expectAccessible(phone, `${path} at 360 px`);
      await phone.screenshot({ path: `${shots}narrow${path.replace('/', '-')}.png` });
    }
    await phone.goto(`${stack.site.url}/files`);
    const menuButton = phone.locator('.rows li').first().locator('.menu-button');
    const box = await menuButton.boundingBox();
    expect((box?.x ?? 999) + (box?.width ?? 0)).toBeLessThanOrEqual(360);
    await menuButton.click();
    const menu = phone.getByRole('menu');
    await menu.waitFor();
    const m = await menu.boundingBox();
    expect(m && m.x >= 0 && m.x + m.width <= 360).toBe(true);
    await phone.screenshot({ path: `${shots}narrow-menu.png` });
    await phone.keyboard.press('Escape');
    await phone.getByRole('button', { name: 'Grid' }).click();
    await phone.locator('.tiles li.tile').first().waitFor();
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      360,
    );
    await phone.screenshot({ path: `${shots}narrow-grid.png` });
    await narrow.close();
  });

  it('at 360 px the upload panel folds itself when done, opens again, and covers neither toasts nor the last row', async () => {
    // Enough folders to fill a phone's screen.
    await stack.server.db.query(
      `insert into public.folders (owner_id, name)
         select u.id, 'Shelf ' || lpad(g::text, 2, '0')
           from auth.users u, generate_series(1, 30) g where u.email = $1`,
      [user.email],
    );
    const narrow = await stack.newContext();
    const phone = await narrow.newPage();
    await phone.setViewportSize({ width: 360, height: 740 });
    await signIn(phone, stack, user);
    await phone.goto(`${stack.site.url}/files`);
    await phone.locator('.rows li[data-name="Shelf 01"]').waitFor();
    await phone.getByTestId('file-picker').setInputFiles({
      name: 'zz-note.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('a note'),
    });
    const tray = phone.getByRole('region', { name: 'Uploads' });
    const toggle = tray.locator('.tray-toggle');
    await tray.locator('li.upload .upload-state[data-state="done"]').waitFor({ timeout: 60_000 });
    // Done: it folds itself to its one line…
    await expect
      .poll(() => toggle.getAttribute('aria-expanded'), { timeout: 30_000 })
      .toBe('false');
    expect(await tray.locator('li.upload').count()).toBe(0);
    expect(await toggle.textContent()).toMatch(/complete/i);
    // …and opens again when asked, and stays open.
    await toggle.click();
    await tray.locator('li.upload').filter({ hasText: 'zz-note.txt' }).waitFor();

    const overlap = (
      a: { x: number; y: number; width: number; height: number } | null,
      b: { x: number; y: number; width: number; height: number } | null,
    ) => {
      if (!a || !b) throw new Error('not on the page');
      return (
        a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height
      );
    };
    await phone.getByRole('button', { name: 'Actions for Shelf 01' }).click();
    await phone
      .getByRole('menu', { name: 'Actions for Shelf 01' })
      .getByRole('menuitem', { name: 'Move to Trash', exact: true })
      .click();
    const note = phone
      .getByRole('region', { name: 'Notifications' })
      .locator('li', { hasText: '“Shelf 01” moved to Trash.' });
    await note.waitFor();
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');
    expect(overlap(await note.boundingBox(), await tray.boundingBox())).toBe(false);
    await phone.screenshot({ path: `${shots}narrow-tray-and-toast.png` });

    // The end of the list, scrolled to, is above the panel (open, then folded).
    for (const state of ['true', 'false']) {
      if ((await toggle.getAttribute('aria-expanded')) !== state) await toggle.click();
      await phone.evaluate(() => {
        const list = document.querySelector('.list-scroll');
        list?.scrollTo(0, list.scrollHeight);
        window.scrollTo(0, document.documentElement.scrollHeight);
      });
      const last = phone.locator('.rows li[data-name="zz-note.txt"]');
      await last.waitFor();
      await expect
        .poll(async () => overlap(await last.boundingBox(), await tray.boundingBox()))
        .toBe(false);
    }
    await narrow.close();
  });

  it('the not-found screens pass the accessibility check too', async () => {
    await page.goto(`${stack.site.url}/no-such-page`);
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    await expectAccessible(page, 'the page-not-found screen');
    await page.goto(`${stack.site.url}/files/00000000-0000-4000-8000-000000000000`);
    await page.getByRole('heading', { name: 'Folder not found' }).waitFor();
    await expectAccessible(page, 'the folder-not-found screen');
  });

  it('threw no uncaught error in the page', () => {
    expect(errors).toEqual([]);
  });
});
