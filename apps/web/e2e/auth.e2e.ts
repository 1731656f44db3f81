import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from './axe';
import { type Stack, startStack, watchErrors } from './stack';

const shots = fileURLToPath(new URL('../.artifacts/screenshots/', import.meta.url));

describe('accounts, as a new user', () => {
  let stack: Stack;
  let page: Page;
  let errors: string[];
  const email = `ada-${Date.now()}@example.com`;
  const password = 'correct horse battery';

  beforeAll(async () => {
    mkdirSync(shots, { recursive: true });
    stack = await startStack();
    const context = await stack.newContext();
    page = await context.newPage();
    errors = watchErrors(page);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('sends a signed-out visitor to sign in', async () => {
    await page.goto(`${stack.site.url}/files`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/sign-in');
    await page.screenshot({ path: `${shots}sign-in.png` });
    await expectAccessible(page, 'sign in');
  });

  it('refuses a short password and a bad email before asking the backend', async () => {
    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.getByLabel('Email').fill('not-an-email');
    await page.getByLabel('Password').fill('short');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByText('Enter a valid email address.').waitFor();
    await page.getByText('Use at least 8 characters.').waitFor();
    await page.screenshot({ path: `${shots}sign-up.png` });
    await expectAccessible(page, 'sign up');
  });

  it('signs up and lands in an empty drive', async () => {
    await page.getByLabel('Display name').fill('Ada');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByText('This folder is empty.', { exact: false }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/files');
    expect(await page.getByRole('banner').textContent()).toContain('Ada');
  });

  it('signs out', async () => {
    await page.getByRole('banner').getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.goto(`${stack.site.url}/files`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(await page.getByText('Your session has expired').count()).toBe(0);
  });

  it('says "email taken" for a second sign-up with the same email', async () => {
    await page.goto(`${stack.site.url}/sign-up`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Create account' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toBe(
      'An account with this email already exists. Sign in instead.',
    );
  });

  it('shows one generic sentence for a wrong password, with no raw error', async () => {
    await page.goto(`${stack.site.url}/sign-in`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('wrong password!');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toBe('Incorrect email or password.');
    await page.screenshot({ path: `${shots}sign-in-error.png` });
    await expectAccessible(page, 'sign in error');
  });

  it('signs in again and keeps the session across a reload', async () => {
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('This folder is empty.', { exact: false }).waitFor();
    await page.reload();
    await page.getByText('This folder is empty.', { exact: false }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/files');
  });

  it('shows settings: storage used against the quota, and a display name that saves', async () => {
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Settings' })
      .click();
    await page.getByRole('heading', { name: 'Settings' }).waitFor();
    await page.getByText('0 B of 10 GB used · 0 files').waitFor();
    const name = page.getByLabel('Display name');
    await expect.poll(() => name.inputValue()).toBe('Ada');
    await name.fill('Ada L.');
    await page.getByRole('button', { name: 'Save name' }).click();
    await page.getByText('Saved.').waitFor();
    await page.screenshot({ path: `${shots}settings.png`, fullPage: true });
    await expectAccessible(page, 'settings');
    await page.reload();
    await expect.poll(() => page.getByLabel('Display name').inputValue()).toBe('Ada L.');
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Files' })
      .click();
  });

  it('follows the system dark theme', async () => {
    const dark = await stack.browser.newContext({ colorScheme: 'dark' });
    const p = await dark.newPage();
    await p.goto(`${stack.site.url}/sign-in`);
    await p.getByRole('heading', { name: 'Sign in' }).waitFor();
    const background = await p.evaluate(
      () => getComputedStyle(document.documentElement).backgroundColor,
    );
    expect(background).toBe('rgb(17, 19, 24)');
    await p.screenshot({ path: `${shots}sign-in-dark.png` });
    await expectAccessible(p, 'sign in dark');
    await dark.close();
  });

  it('answers the same way to a password reset request, whoever asks', async () => {
    const other = await (await stack.newContext()).newPage();
    await other.goto(`${stack.site.url}/forgot-password`);
    await other.getByLabel('Email').fill('nobody-here@example.com');
    await other.getByRole('button', { name: 'Send reset email' }).click();
    const status = other.getByRole('status');
    await status.waitFor();
    expect(await status.textContent()).toContain(
      'If an account exists for nobody-here@example.com',
    );
    await other.screenshot({ path: `${shots}forgot-password.png` });
    await expectAccessible(other, 'forgot password');
    await other.context().close();
  });

  it('resets a forgotten password from the link in the email, then signs in with the new one', async () => {
    const visitor = await stack.newContext();
    const p = await visitor.newPage();
    const pageErrors = watchErrors(p);
    await p.goto(`${stack.site.url}/sign-in`);
    await p.getByRole('link', { name: 'Forgot your password?' }).click();
    await p.getByRole('heading', { name: 'Reset your password' }).waitFor();
    await p.getByLabel('Email').fill(email);
    await p.getByRole('button', { name: 'Send reset email' }).click();
    expect(await p.getByRole('status').textContent()).toBe(
      `If an account exists for ${email}, we sent it an email with a link and a code to reset the password.`,
    );

    // The newest recovery mail to this address, from the development outbox.
    const res = await fetch(`${stack.server.url}/_dev/mail?to=${encodeURIComponent(email)}`, {
      headers: { apikey: stack.server.serviceRoleKey },
    });
    expect(res.status).toBe(200);
    const mails = (await res.json()) as Array<{ type: string; to: string; links: string[] }>;
    const mail = mails.find((m) => m.type === 'recovery');
    expect(mail?.to).toBe(email);
    const link = mail?.links[0] ?? '';
    expect(link).toMatch(new RegExp(`^${stack.server.url}/auth/v1/verify\\?`));

    await p.goto(link);
    await p.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    expect(new URL(p.url()).pathname).toBe('/reset-password');
    // The tokens the link handed over do not stay in the address bar.
    expect(new URL(p.url()).hash).toBe('');
    await p.screenshot({ path: `${shots}reset-password.png` });
    await expectAccessible(p, 'reset password');
    await p.getByLabel('New password').fill('a brand new passphrase');
    await p.getByRole('button', { name: 'Save password' }).click();
    await p.getByRole('toolbar', { name: 'Folder actions' }).waitFor();
    expect(new URL(p.url()).pathname).toBe('/files');
    // The link works once: followed again, it says so plainly.
    await p.getByRole('banner').getByRole('button', { name: 'Sign out' }).click();
    await p.getByRole('heading', { name: 'Sign in' }).waitFor();
    await p.goto(link);
    await p.getByRole('heading', { name: 'Enter your reset code' }).waitFor();
    expect(await p.getByRole('alert').textContent()).toBe(
      'This code is not valid or has expired. Ask for a new email.',
    );
    expect(new URL(p.url()).hash).toBe('');
    await visitor.close();
    expect(pageErrors).toEqual([]);

    // The old password no longer works; the new one does.
    await page.getByRole('banner').getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toBe('Incorrect email or password.');
    await page.getByLabel('Password').fill('a brand new passphrase');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('toolbar', { name: 'Folder actions' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/files');
  });

  it('threw no uncaught error in the page', () => {
    expect(errors).toEqual([]);
  });
});
