/**
 * Signing in with GitHub and Google, as a new user would: "Continue with …" on the sign-in
 * and sign-up pages, the provider's page (the backend's emulated provider, as in `pnpm
 * start`), back to Drive signed in; an earlier account offered again; a cancelled sign-in;
 * Settings › Sign-in methods: link Google, unlink, and the refusal for the last one.
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from './axe';
import { type Stack, signUpNewUser, startStack, watchErrors } from './stack';

const shots = fileURLToPath(new URL('../.artifacts/screenshots/', import.meta.url));
const unique = (name: string) =>
  `${name}-${Date.now()}-${Math.random().toString(36).slice(2, 7)}@example.com`;

/** The provider's page: waits for it and checks where it is. */
async function onProviderPage(page: Page, stack: Stack, provider: string) {
  await page.waitForURL((url) => url.pathname === '/auth/v1/emulator');
  expect(new URL(page.url()).origin).toBe(stack.server.url);
  await page.getByRole('heading', { name: `Sign in with ${provider}` }).waitFor();
}

/** Types a new account on the provider's page and signs in there. */
async function typeAccount(page: Page, account: { email: string; name: string }) {
  await page.getByLabel('Email', { exact: true }).fill(account.email);
  await page.getByLabel('Name', { exact: true }).fill(account.name);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

/** Signs out from Settings › Sessions. */
async function signOut(page: Page, stack: Stack) {
  await page.goto(`${stack.site.url}/settings`);
  const sessions = page.getByRole('region', { name: 'Sessions' });
  await sessions.getByRole('button', { name: 'Sign out', exact: true }).click();
  await page.waitForURL((url) => url.pathname === '/sign-in');
}

const toolbar = (page: Page) => page.getByRole('toolbar', { name: 'Folder actions' });

describe('sign-in with providers, as a new user', () => {
  let stack: Stack;
  let page: Page;
  let errors: string[];
  const octo = { email: unique('octo'), name: 'Octo Cat' };

  beforeAll(async () => {
    mkdirSync(shots, { recursive: true });
    stack = await startStack();
    page = await (await stack.newContext({ bypassCSP: true })).newPage();
    errors = watchErrors(page);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('offers "Continue with" each configured provider on sign-in and sign-up', async () => {
    await page.goto(`${stack.site.url}/sign-up`);
    await page.getByRole('button', { name: 'Continue with GitHub' }).waitFor();
    await page.getByRole('button', { name: 'Continue with Google' }).waitFor();
    await page.goto(`${stack.site.url}/sign-in`);
    const buttons = page.locator('.providers button');
    await buttons.first().waitFor();
    expect(await buttons.allTextContents()).toEqual([
      'Continue with GitHub',
      'Continue with Google',
    ]);
    await page.screenshot({ path: `${shots}sign-in-providers.png` });
    await expectAccessible(page, 'the sign-in page with providers');
  });

  it('signs up with GitHub: the provider page, then into Drive', async () => {
    await page.getByRole('button', { name: 'Continue with GitHub' }).click();
    await onProviderPage(page, stack, 'GitHub');
    await page.screenshot({ path: `${shots}provider-emulator.png` });
    await expectAccessible(page, 'the emulated provider page');
    await typeAccount(page, octo);
    await toolbar(page).waitFor();
    expect(new URL(page.url()).pathname).toBe('/files');
    // The account is named after the provider's profile.
    await page.getByText('Octo Cat').first().waitFor();
    await page.getByRole('button', { name: 'New folder' }).click();
    const dialog = page.getByRole('dialog', { name: 'New folder' });
    await dialog.getByLabel('Folder name').fill('From GitHub');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await page.locator('.rows li[data-name="From GitHub"]').waitFor();
  });

  it('signs in again with the same GitHub account, offered on the provider page', async () => {
    await signOut(page, stack);
    await page.getByRole('button', { name: 'Continue with GitHub' }).click();
    await onProviderPage(page, stack, 'GitHub');
    await page.getByRole('button', { name: new RegExp(`Octo Cat\\s*${octo.email}`) }).click();
    await toolbar(page).waitFor();
    await page.locator('.rows li[data-name="From GitHub"]').waitFor();
  });

  it('lists the sign-in methods; the only one cannot be unlinked; links Google, unlinks GitHub', async () => {
    await page.goto(`${stack.site.url}/settings`);
    const section = page.getByRole('region', { name: 'Sign-in methods' });
    const methods = section.locator('.methods li');
    await methods.first().waitFor();
    expect(await methods.allTextContents()).toEqual([`GitHub ${octo.email}Unlink GitHub`]);
    await section.getByRole('button', { name: 'Unlink GitHub' }).click();
    expect(await section.getByRole('alert').textContent()).toBe(
      'This is your only way to sign in, so it cannot be removed. Link another one first.',
    );
    await expectAccessible(page, 'Settings with the sign-in methods');

    await section.getByRole('button', { name: 'Link Google' }).click();
    await onProviderPage(page, stack, 'Google');
    const google = unique('octo.google');
    await typeAccount(page, { email: google, name: 'Octo G' });
    await page.waitForURL((url) => url.pathname === '/settings');
    await expect
      .poll(() => section.locator('.methods li').allTextContents())
      .toEqual([`GitHub ${octo.email}Unlink GitHub`, `Google ${google}Unlink Google`]);
    await section.screenshot({ path: `${shots}settings-sign-in-methods.png` });

    await section.getByRole('button', { name: 'Unlink GitHub' }).click();
    await expect
      .poll(() => section.locator('.methods li').allTextContents())
      .toEqual([`Google ${google}Unlink Google`]);
    // GitHub can be linked again.
    await section.getByRole('button', { name: 'Link GitHub' }).waitFor();
  });

  it('shows a cancelled sign-in as a sentence on the sign-in page', async () => {
    await signOut(page, stack);
    await page.getByRole('button', { name: 'Continue with Google' }).click();
    await onProviderPage(page, stack, 'Google');
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.waitForURL((url) => url.pathname === '/sign-in');
    expect(await page.getByRole('alert').textContent()).toBe('Sign-in was cancelled.');
    // The error is taken out of the address bar.
    await expect.poll(() => new URL(page.url()).search + new URL(page.url()).hash).toBe('');
    await expectAccessible(page, 'the sign-in page after a cancelled sign-in');
  });

  it('links GitHub to an account made with email and password', async () => {
    const context = await stack.newContext();
    const other = await context.newPage();
    const user = await signUpNewUser(other, stack, 'Mary');
    await other.goto(`${stack.site.url}/settings`);
    const section = other.getByRole('region', { name: 'Sign-in methods' });
    await section.locator('.methods li').first().waitFor();
    await section.getByRole('button', { name: 'Link GitHub' }).click();
    await onProviderPage(other, stack, 'GitHub');
    await typeAccount(other, { email: unique('mary.gh'), name: 'Mary GH' });
    await other.waitForURL((url) => url.pathname === '/settings');
    await expect
      .poll(() => section.locator('.methods li strong').allTextContents())
      .toEqual(['Email and password', 'GitHub']);
    expect(await section.locator('.methods li').first().textContent()).toContain(user.email);
    await context.close();
  });

  it('raised no page errors', () => {
    expect(errors).toEqual([]);
  });
});
