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

const jobs = async () =>
  (
    await stack.server.db.query<{ jobname: string; active: boolean }>(
      'select jobname, active from cron.job order by jobid',
    )
  ).rows;

describe('console: cron', () => {
  it('says how to install pg_cron when it is not there', async () => {
    const page = stack.page;
    await stack.open('cron');
    await page.getByText(/pg_cron is not installed in this database/).waitFor();
    expect(await page.locator('pre').textContent()).toContain(
      'create extension if not exists pg_cron',
    );
    expect(await accessibilityViolations(page)).toEqual([]);
  });

  it('lists jobs scheduled in SQL, with the runs the scheduler made', async () => {
    const page = stack.page;
    await stack.server.db.exec(`
      create extension pg_cron with schema pg_catalog;
      create table public.ticks (job text, at timestamptz default now());
      select cron.schedule('tick', '1 seconds', $$insert into public.ticks (job) values ('tick')$$);
      select cron.schedule('nightly', '0 3 * * *', $$insert into public.ticks (job) values ('nightly')$$);`);
    await stack.open('cron');
    const table = page.getByRole('table', { name: 'Jobs' });
    await table.getByRole('link', { name: 'nightly' }).waitFor();
    expect(await table.locator('tbody tr').count()).toBe(2);
    const nightly = table.getByRole('row').filter({ hasText: 'nightly' });
    expect(await nightly.getByRole('cell').nth(1).textContent()).toBe('0 3 * * *');
    expect(await nightly.getByRole('cell').nth(3).textContent()).toBe('yes');

    // The every-second job runs on its own: its runs show, and its last run in the list.
    await table.getByRole('link', { name: 'tick' }).click();
    await page.getByRole('heading', { name: 'Runs of tick' }).waitFor();
    const runs = page.getByRole('table', { name: /^Runs of tick/ });
    await runs.getByRole('cell', { name: 'INSERT 0 1' }).first().waitFor();
    expect(await runs.getByRole('cell', { name: 'succeeded' }).count()).toBeGreaterThan(0);
    await table
      .getByRole('row')
      .filter({ hasText: 'tick' })
      .getByText(/^succeeded · /)
      .waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);
  });

  it('runs a job now and records the run', async () => {
    const page = stack.page;
    await page.getByRole('table', { name: 'Jobs' }).getByRole('link', { name: 'nightly' }).click();
    const runs = page.getByRole('table', { name: /^Runs of nightly/ });
    await runs.getByText('No runs yet.').waitFor();
    await page.getByRole('button', { name: 'Run now nightly' }).click();
    await runs.getByRole('cell', { name: 'INSERT 0 1' }).waitFor();
    expect(await runs.locator('tbody tr').count()).toBe(1);
    expect(await runs.getByRole('cell', { name: 'succeeded' }).count()).toBe(1);
    const made = await stack.server.db.query(
      `select count(*)::int as n from public.ticks where job = 'nightly'`,
    );
    expect(made.rows).toEqual([{ n: 1 }]);
    await page.getByRole('button', { name: 'Run now nightly' }).click();
    await runs.locator('tbody tr').nth(1).waitFor();
    expect(await runs.locator('tbody tr').count()).toBe(2);
  });

  it('pauses and resumes a job, and deletes one', async () => {
    const page = stack.page;
    const table = page.getByRole('table', { name: 'Jobs' });
    await page.getByRole('button', { name: 'Pause tick' }).click();
    await page.getByRole('button', { name: 'Resume tick' }).waitFor();
    expect(await jobs()).toEqual([
      { jobname: 'tick', active: false },
      { jobname: 'nightly', active: true },
    ]);
    const tick = table.getByRole('row').filter({ hasText: 'tick' });
    expect(await tick.getByRole('cell').nth(3).textContent()).toBe('paused');
    expect(await tick.getByRole('cell').nth(5).textContent()).toBe('—');
    expect(await accessibilityViolations(page)).toEqual([]);

    await page.getByRole('button', { name: 'Resume tick' }).click();
    await page.getByRole('button', { name: 'Pause tick' }).waitFor();
    expect((await jobs())[0]).toEqual({ jobname: 'tick', active: true });

    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Delete tick' }).click();
    await table.getByRole('link', { name: 'tick' }).waitFor({ state: 'detached' });
    expect(await jobs()).toEqual([{ jobname: 'nightly', active: true }]);
    expect(errors).toEqual([]);
  });
});
