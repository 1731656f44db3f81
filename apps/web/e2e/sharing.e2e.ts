import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from './axe';
import { type Stack, signUpNewUser, startStack, watchErrors } from './stack';

const artifacts = fileURLToPath(new URL('../.artifacts/', import.meta.url));
const shots = `${artifacts}screenshots/`;
const inputs = `${artifacts}inputs/`;

describe('share links that expired or were revoked', () => {
  let stack: Stack;
  let page: Page;
  let errors: string[];
  let visitor: BrowserContext;
  let guest: Page;

  /** Creates a link for `name` in the share dialog and returns it (the dialog stays open). */
  async function createLink(name: string, expiry: string): Promise<string> {
    await page.locator(`.rows li[data-name="${name}"]`).getByRole('checkbox').check();
    await page
      .getByRole('toolbar', { name: 'Selection actions' })
      .getByRole('button', { name: 'Share' })
      .click();
    const dialog = page.getByRole('dialog', { name: `Share “${name}”` });
    await dialog.getByLabel('Link expires after').selectOption({ label: expiry });
    await dialog.getByRole('button', { name: 'Create link' }).click();
    const link = await dialog.getByLabel('Share link').inputValue();
    expect(link).toMatch(new RegExp(`^${stack.site.url}/s/[0-9a-f]{64}$`));
    return link;
  }

  async function closeDialog(name: string) {
    const dialog = page.getByRole('dialog', { name: `Share “${name}”` });
    await dialog.getByRole('button', { name: 'Close' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.locator(`.rows li[data-name="${name}"]`).getByRole('checkbox').uncheck();
  }

  /** What the `share` function answers a visitor for a token (the only way to the file). */
  async function askShare(link: string) {
    const token = link.split('/s/')[1];
    const res = await fetch(`${stack.server.url}/functions/v1/share`, {
      method: 'POST',
      headers: {
        apikey: stack.server.anonKey,
        authorization: `Bearer ${stack.server.anonKey}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ token }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  const share = async (link: string) =>
    (
      await stack.server.db.query<{ revoked: boolean; download_count: number }>(
        'select revoked_at is not null as revoked, download_count from public.shares where token = $1',
        [link.split('/s/')[1]],
      )
    ).rows[0];

  beforeAll(async () => {
    mkdirSync(shots, { recursive: true });
    mkdirSync(inputs, { recursive: true });
    writeFileSync(`${inputs}report.txt`, 'Quarterly report.\n');
    writeFileSync(`${inputs}plans.txt`, 'Plans for next year.\n');
    stack = await startStack();
    page = await (await stack.newContext()).newPage();
    errors = watchErrors(page);
    await signUpNewUser(page, stack);
    await page
      .getByTestId('file-picker')
      .setInputFiles([`${inputs}report.txt`, `${inputs}plans.txt`]);
    await page.locator('.rows li[data-name="report.txt"]').waitFor();
    await page.locator('.rows li[data-name="plans.txt"]').waitFor();
    // Both uploads finished (the upload tray says so row by row).
    for (const name of ['report.txt', 'plans.txt']) {
      await page
        .locator('.tray li.upload')
        .filter({ hasText: name })
        .locator('.upload-state[data-state="done"]')
        .waitFor({ timeout: 60_000 });
    }
    visitor = await stack.newContext();
    guest = await visitor.newPage();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('tells a visitor plainly that a link has expired, and gives no way to the file', async () => {
    const link = await createLink('report.txt', '1 hour');
    await closeDialog('report.txt');
    // The hour passes: the link was created two hours ago and expired one hour ago.
    await stack.server.db.query(
      `update public.shares set created_at = now() - interval '2 hours',
         expires_at = now() - interval '1 hour' where token = $1`,
      [link.split('/s/')[1]],
    );

    await guest.goto(link);
    await guest.getByRole('heading', { name: 'Link no longer available' }).waitFor();
    expect(await guest.getByRole('alert').textContent()).toBe('This link has expired.');
    expect(await guest.getByRole('button', { name: 'Download' }).count()).toBe(0);
    expect(await guest.getByText('report.txt').count()).toBe(0);
    await guest.screenshot({ path: `${shots}share-expired.png` });
    await expectAccessible(guest, 'share expired');

    const answer = await askShare(link);
    expect(answer).toEqual({
      status: 410,
      body: { error: 'expired', message: 'This link has expired.' },
    });
    expect(await share(link)).toEqual({ revoked: false, download_count: 0 });

    // The owner sees it as expired (on a fresh load: the dialog's list was cached an hour
    // ago, as far as the page knows), with nothing left to revoke.
    await page.reload();
    await page.locator('.rows li[data-name="report.txt"]').getByRole('checkbox').check();
    await page
      .getByRole('toolbar', { name: 'Selection actions' })
      .getByRole('button', { name: 'Share' })
      .click();
    const dialog = page.getByRole('dialog', { name: 'Share “report.txt”' });
    const item = dialog.locator('.shares li');
    await item.waitFor();
    expect(await item.textContent()).toContain('Expired');
    expect(await item.getByRole('button', { name: /^Revoke/ }).count()).toBe(0);
    await closeDialog('report.txt');
  });

  it('tells a visitor plainly that a link was revoked, and gives no way to the file', async () => {
    const link = await createLink('plans.txt', '7 days');
    // Before: the visitor can download.
    await guest.goto(link);
    await guest.getByRole('heading', { name: 'plans.txt' }).waitFor();
    expect(await guest.getByRole('button', { name: 'Download' }).count()).toBe(1);

    const token = link.split('/s/')[1] ?? '';
    const dialog = page.getByRole('dialog', { name: 'Share “plans.txt”' });
    await dialog.getByRole('button', { name: `Revoke link ending ${token.slice(-8)}` }).click();
    await dialog.locator('.shares li').getByText('Revoked').waitFor();
    await closeDialog('plans.txt');
    expect(await share(link)).toMatchObject({ revoked: true });

    await guest.reload();
    await guest.getByRole('heading', { name: 'Link no longer available' }).waitFor();
    expect(await guest.getByRole('alert').textContent()).toBe('This link has been revoked.');
    expect(await guest.getByRole('button', { name: 'Download' }).count()).toBe(0);
    await guest.screenshot({ path: `${shots}share-revoked.png` });
    await expectAccessible(guest, 'share revoked');

    const answer = await askShare(link);
    expect(answer).toEqual({
      status: 410,
      body: { error: 'revoked', message: 'This link has been revoked.' },
    });
  });

  it('threw no uncaught error in the page', () => {
    expect(errors).toEqual([]);
  });
});
