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

const rows = async (sql: string) => (await stack.server.db.query(sql)).rows;

describe('console: queues', () => {
  it('says how to install pgmq when it is not there', async () => {
    const page = stack.page;
    await stack.open('queues');
    await page.getByText(/pgmq is not installed in this database/).waitFor();
    expect(await page.locator('pre').textContent()).toContain(
      'create extension if not exists pgmq',
    );
    expect(await accessibilityViolations(page)).toEqual([]);
  });

  it('creates a queue and sends a message that shows in it', async () => {
    const page = stack.page;
    await stack.server.db.query('create extension pgmq');
    await stack.open('queues');
    await page.getByText('No queues yet.').waitFor();
    await page.getByLabel('Name').fill('Emails');
    await page.getByRole('button', { name: 'Create queue' }).click();
    await page.getByRole('heading', { name: 'emails', level: 2 }).waitFor();
    expect(await rows('select queue_name from pgmq.meta')).toEqual([{ queue_name: 'emails' }]);

    await page.getByLabel('Message (JSON)').fill('{"to": "ada@example.com"');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.getByRole('alert').getByText('Message: Enter valid JSON.').waitFor();
    await page.getByLabel('Message (JSON)').fill('{"to": "ada@example.com"}');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.getByText('Sent message 1.').waitFor();

    const messages = page.getByRole('table', { name: 'Messages of emails' });
    const first = messages.getByRole('row').filter({ hasText: 'ada@example.com' });
    await first.waitFor();
    expect(await first.getByRole('cell').nth(0).textContent()).toBe('1');
    expect(await first.getByRole('cell').nth(3).textContent()).toBe('yes');
    expect(await first.getByRole('cell').nth(4).textContent()).toBe('{"to":"ada@example.com"}');
    await page.getByRole('link', { name: 'emails' }).getByText('emails').waitFor();
    await page.getByText('1 message', { exact: true }).waitFor();
    expect(await rows('select message from pgmq.q_emails')).toEqual([
      { message: { to: 'ada@example.com' } },
    ]);
    expect(await accessibilityViolations(page)).toEqual([]);
  });

  it('reads a message, which hides it until its visibility timeout', async () => {
    const page = stack.page;
    await page.getByLabel('Visibility timeout (seconds)').fill('600');
    await page.getByRole('button', { name: 'Read', exact: true }).click();
    const read = page.getByRole('table', { name: 'Messages read' });
    await read.getByRole('cell', { name: '{"to":"ada@example.com"}' }).waitFor();
    expect(await read.locator('tbody tr').count()).toBe(1);
    const messages = page.getByRole('table', { name: 'Messages of emails' });
    const first = messages.getByRole('row').filter({ hasText: 'ada@example.com' });
    await first.getByText(/^hidden until /).waitFor();
    expect(await first.getByRole('cell').nth(1).textContent()).toBe('1');
    const hidden = await rows(
      `select read_ct, vt > now() + interval '500 seconds' as hidden from pgmq.q_emails`,
    );
    expect(hidden).toEqual([{ read_ct: 1, hidden: true }]);

    // Nothing else is visible: a second read gets nothing.
    await page.getByRole('button', { name: 'Read', exact: true }).click();
    await read.getByText('No visible message to read.').waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);
  });

  it('archives a message into the archive table, and deletes another', async () => {
    const page = stack.page;
    await page.getByRole('button', { name: 'Archive message 1' }).click();
    const messages = page.getByRole('table', { name: 'Messages of emails' });
    await messages.getByText('The queue is empty.').waitFor();
    expect(await rows('select msg_id::int as id, message from pgmq.a_emails')).toEqual([
      { id: 1, message: { to: 'ada@example.com' } },
    ]);
    await page.getByRole('link', { name: 'Archive', exact: true }).click();
    const archive = page.getByRole('table', { name: 'Archive of emails' });
    await archive.getByRole('cell', { name: '{"to":"ada@example.com"}' }).waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);

    await page.getByRole('link', { name: 'Messages', exact: true }).click();
    await page.getByLabel('Message (JSON)').fill('[1, 2, 3]');
    await page.getByLabel(/^Delay/).fill('3600');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.getByText('Sent message 2.').waitFor();
    const second = messages.getByRole('row').filter({ hasText: '[1,2,3]' });
    await second.getByText(/^hidden until /).waitFor();
    await page.getByRole('button', { name: 'Delete message 2' }).click();
    await messages.getByText('The queue is empty.').waitFor();
    expect(await rows('select count(*)::int as n from pgmq.q_emails')).toEqual([{ n: 0 }]);
    expect(await rows('select count(*)::int as n from pgmq.a_emails')).toEqual([{ n: 1 }]);
  });

  it('drops a queue', async () => {
    const page = stack.page;
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Drop queue' }).click();
    await page.getByText('No queues yet.').waitFor();
    expect(await rows('select count(*)::int as n from pgmq.meta')).toEqual([{ n: 0 }]);
    expect(errors).toEqual([]);
  });
});
