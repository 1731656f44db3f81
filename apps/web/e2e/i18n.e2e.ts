import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from './axe';
import { type Stack, signUpNewUser, startStack, watchErrors } from './stack';
import { rowOf } from './upload-helpers';

const inputs = fileURLToPath(new URL('../.artifacts/inputs/i18n/', import.meta.url));
const NOTE = 'hello\n'.repeat(100); // 600 bytes

const html = (page: Page) =>
  page.evaluate(() => [document.documentElement.lang, document.documentElement.dir]);
const usage = (page: Page) => page.locator('.settings section').first().locator('p').textContent();

describe('Languages, as a new user', () => {
  let stack: Stack;
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    mkdirSync(inputs, { recursive: true });
    writeFileSync(`${inputs}note.txt`, NOTE);
    stack = await startStack();
    page = await (await stack.newContext()).newPage();
    errors = watchErrors(page);
    await signUpNewUser(page, stack);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('switches to Arabic in Settings: Arabic text, right to left, plurals, sizes and dates by locale, kept on reload; and back', async () => {
    // One file, so the counts have something to count.
    await page.getByTestId('file-picker').setInputFiles([`${inputs}note.txt`]);
    const row = rowOf(page, 'note.txt');
    await row.waitFor();
    await expect.poll(() => row.textContent(), { timeout: 20_000 }).toContain('600 B');

    await page.getByRole('link', { name: 'Settings' }).first().click();
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    expect(await html(page)).toEqual(['en', 'ltr']);
    await expect.poll(() => usage(page)).toContain('· 1 file');

    await page.getByRole('radio', { name: 'العربية' }).click();
    await page.getByRole('heading', { name: 'الإعدادات', level: 1 }).waitFor();
    expect(await html(page)).toEqual(['ar', 'rtl']);
    // Arabic's "one" form (ملف واحد), and the size in Arabic digits and units.
    const size = await page.evaluate(
      (n) => `${new Intl.NumberFormat('ar', { useGrouping: false }).format(n)} بايت`,
      NOTE.length,
    );
    await expect.poll(() => usage(page)).toContain('ملف واحد');
    expect(await usage(page)).toContain(size);
    expect(await page.getByRole('radio', { name: 'العربية' }).isChecked()).toBe(true);
    // The page lays out right to left: the heading starts at the right edge.
    const box = await page.getByRole('heading', { name: 'الإعدادات' }).boundingBox();
    const width = page.viewportSize()?.width ?? 0;
    expect(box && box.x + box.width).toBeGreaterThan(width / 2);
    await expectAccessible(page, 'Settings in Arabic, right to left');

    // Reload: still Arabic.
    await page.reload();
    await page.getByRole('heading', { name: 'الإعدادات', level: 1 }).waitFor();
    expect(await html(page)).toEqual(['ar', 'rtl']);

    // The file list: the size and the date in Arabic.
    await page.goto(`${new URL(page.url()).origin}/files`);
    await expect.poll(() => row.textContent()).toContain(size);
    expect(await row.textContent()).toMatch(/[0-9٠-٩]{4}،/);
    await page.getByRole('button', { name: 'إجراءات note.txt' }).waitFor();
    await page.getByRole('link', { name: 'ملفاتي' }).waitFor();
    await expectAccessible(page, 'My files in Arabic, right to left');

    // Search reads Arabic too: its heading, box, the count of results (the "one" form) and a hit.
    await page.goto(`${new URL(page.url()).origin}/search?q=note`);
    await page.getByRole('heading', { name: 'البحث', level: 1 }).waitFor();
    await page.getByPlaceholder('ابحث في الملفات والمجلدات').waitFor();
    await page.getByText('نتيجة واحدة عن «note»').waitFor();
    const hits = page.getByRole('list', { name: 'نتائج البحث عن note' });
    expect(await hits.getByRole('listitem').first().textContent()).toContain('عُدّل في');
    await expectAccessible(page, 'Search in Arabic, right to left');

    // Back to English.
    await page.goto(`${new URL(page.url()).origin}/settings`);
    await page.getByRole('radio', { name: 'English' }).click();
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    expect(await html(page)).toEqual(['en', 'ltr']);
    await expect.poll(() => usage(page)).toContain('600 B of');
    await page.reload();
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    expect(errors).toEqual([]);
  });
});
