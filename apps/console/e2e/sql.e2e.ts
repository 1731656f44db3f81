import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  accessibilityViolations,
  type ConsoleStack,
  startConsoleStack,
  watchErrors,
} from './stack';

let stack: ConsoleStack;
let errors: string[];

beforeAll(async () => {
  stack = await startConsoleStack();
  errors = watchErrors(stack.page);
});
afterAll(() => stack?.stop());

describe('console: SQL', () => {
  it('runs a script as the superuser and shows each result as a table', async () => {
    const page = stack.page;
    await stack.open('sql');
    const editor = page.getByLabel('Script');
    await editor.fill(
      "create table public.scores (name text, points int);\ninsert into public.scores values ('ada', 3), ('bob', 5);\nselect name, points from public.scores order by points desc;",
    );
    await page.getByRole('button', { name: 'Run' }).click();
    await page.getByRole('heading', { name: 'SELECT · 2 rows' }).waitFor();
    const table = page.getByRole('table', { name: 'Result of statement 3' });
    expect(await table.locator('tbody tr').allTextContents()).toEqual(['bob5', 'ada3']);
    expect(await page.getByRole('heading', { name: 'INSERT · 2 rows' }).count()).toBe(1);
    const rows = await stack.server.db.query('select count(*)::int as n from public.scores');
    expect(rows.rows).toEqual([{ n: 2 }]);
    expect(await accessibilityViolations(page)).toEqual([]);
  });

  it('shows an error at its line and column, and changes nothing', async () => {
    const page = stack.page;
    await page
      .getByLabel('Script')
      .fill('delete from public.scores;\nselect nope\n  from public.scores;');
    await page.getByLabel('Script').press('Control+Enter');
    const alert = page.getByRole('alert');
    await alert.getByText('column "nope" does not exist').waitFor();
    expect(await alert.getByText('Line 2, column 8 (statement 2)').count()).toBe(1);
    expect(await alert.locator('pre').textContent()).toBe('select nope\n       ^');
    const rows = await stack.server.db.query('select count(*)::int as n from public.scores');
    expect(rows.rows).toEqual([{ n: 2 }]);
    expect(await accessibilityViolations(page)).toEqual([]);
  });

  it('keeps a history of scripts across reloads', async () => {
    const page = stack.page;
    await stack.open('sql');
    expect(await page.getByLabel('Script').inputValue()).toContain('select nope');
    await page.getByText(/^History \(2\)/).click();
    await page.getByRole('button', { name: /^create table public.scores/ }).click();
    expect(await page.getByLabel('Script').inputValue()).toContain('create table public.scores');
    expect(errors).toEqual([]);
  });
});
