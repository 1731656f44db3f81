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
  await stack.context.grantPermissions(['clipboard-read', 'clipboard-write']);
  errors = watchErrors(stack.page);
});
afterAll(() => stack?.stop());

/** The secret stored for a key id (null when there is none). */
const storedSecret = async (id: string) =>
  (
    await stack.server.db.query<{ secret: string }>(
      'select secret from _auth.s3_access_keys where id = $1',
      [id],
    )
  ).rows[0]?.secret ?? null;

describe('console: S3 access keys', () => {
  it('creates a key, shows its secret once with a copy button, and deletes it', async () => {
    const page = stack.page;
    await stack.open('s3-keys');
    await page.getByText('No access keys yet.').waitFor();
    await page.getByLabel('Description').fill('Backups');
    await page.getByRole('button', { name: 'Create key' }).click();
    const card = page.getByRole('status', { name: 'New access key' });
    const secret = await card.getByLabel('Secret access key').inputValue();
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    await card.getByRole('button', { name: 'Copy secret' }).click();
    await card.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    const table = page.getByRole('table', { name: 'S3 access keys' });
    const row = table.getByRole('row').filter({ hasText: 'Backups' });
    const id = (await row.locator('code').textContent()) ?? '';
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(await storedSecret(id)).toBe(secret);
    expect(await accessibilityViolations(page)).toEqual([]);

    // Gone once acknowledged; the list never holds it.
    await card.getByRole('button', { name: 'Done' }).click();
    expect(await page.getByLabel('Secret access key').count()).toBe(0);

    page.once('dialog', (d) => void d.accept());
    await row.getByRole('button', { name: `Delete the key ${id}` }).click();
    await page.getByText('No access keys yet.').waitFor();
    expect(await storedSecret(id)).toBeNull();
    expect(errors).toEqual([]);
  });
});
