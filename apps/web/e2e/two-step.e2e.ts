import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createClient } from '@app/backend-sdk';
import { Secret, TOTP } from 'otpauth';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from './axe';
import { type Stack, signUpNewUser, startStack, watchErrors } from './stack';

const shots = fileURLToPath(new URL('../.artifacts/screenshots/', import.meta.url));

/** The code an authenticator app shows now for a secret (what the user types). */
const codeFor = (secret: string, at = Date.now()) =>
  new TOTP({
    secret: Secret.fromBase32(secret),
    algorithm: 'SHA1',
    digits: 6,
    period: 30,
  }).generate({ timestamp: at });
/** A code the app does not show now (nor one step before or after). */
function wrongCode(secret: string): string {
  const valid = new Set([-30_000, 0, 30_000].map((d) => codeFor(secret, Date.now() + d)));
  for (let n = 0; ; n++)
    if (!valid.has(String(n).padStart(6, '0'))) return String(n).padStart(6, '0');
}

const folderNames = (page: Page) =>
  page
    .locator('.rows li[data-kind="folder"]')
    .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-name')));

describe('2-step verification, as a new user', () => {
  let stack: Stack;
  let page: Page;
  let errors: string[];
  let user: { email: string; password: string };
  let secret = '';

  beforeAll(async () => {
    mkdirSync(shots, { recursive: true });
    stack = await startStack();
    page = await (await stack.newContext()).newPage();
    errors = watchErrors(page);
    user = await signUpNewUser(page, stack, 'Grace');
    await page.getByRole('button', { name: 'New folder' }).click();
    const dialog = page.getByRole('dialog', { name: 'New folder' });
    await dialog.getByLabel('Folder name').fill('Taxes');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await page.locator('.rows li[data-name="Taxes"]').waitFor();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('turns it on in Settings: QR code and key, a wrong code refused, the right one accepted', async () => {
    await page.goto(`${stack.site.url}/settings`);
    const section = page.getByRole('region', { name: '2-step verification' });
    await section.getByText('Off.').waitFor();
    await section.getByRole('button', { name: 'Turn on 2-step verification' }).click();
    const qr = section.getByRole('img', { name: 'QR code to scan with your authenticator app' });
    await qr.waitFor();
    // The QR code is an SVG the browser can draw.
    expect(await qr.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(
      true,
    );
    secret = (await section.getByTestId('totp-secret').textContent()) ?? '';
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    await page.screenshot({ path: `${shots}two-step-setup.png` });
    await expectAccessible(page, 'the 2-step verification setup');

    await section.getByLabel('6-digit code').fill(wrongCode(secret));
    await section.getByRole('button', { name: 'Turn on', exact: true }).click();
    expect(await section.getByRole('alert').textContent()).toBe(
      'That code is not right. Enter the code your app shows now.',
    );
    await section.getByLabel('6-digit code').fill(codeFor(secret));
    await section.getByRole('button', { name: 'Turn on', exact: true }).click();
    await section.getByText('On.').waitFor();
    await section.getByRole('button', { name: 'Turn off 2-step verification' }).waitFor();
  });

  it('asks for a code after the password at the next sign-in; nothing shows before it', async () => {
    await page.getByRole('banner').getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: '2-step verification' }).waitFor();
    expect(await page.getByRole('toolbar', { name: 'Folder actions' }).count()).toBe(0);
    await page.screenshot({ path: `${shots}two-step-sign-in.png` });
    await expectAccessible(page, 'the sign-in code step');

    await page.getByLabel('6-digit code').fill(wrongCode(secret));
    await page.getByRole('button', { name: 'Verify' }).click();
    expect(await page.getByRole('alert').textContent()).toBe(
      'That code is not right. Enter the code your app shows now.',
    );
    await page.getByLabel('6-digit code').fill(codeFor(secret));
    await page.getByRole('button', { name: 'Verify' }).click();
    // Back where the user signed out (Settings), now with the account shown.
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    await page.getByRole('banner').getByRole('link', { name: 'Files' }).click();
    await page.locator('.rows li[data-name="Taxes"]').waitFor();
    expect(await folderNames(page)).toEqual(['Taxes']);
  });

  it('keeps the files from a session that has only the password (row level security)', async () => {
    const memory = new Map<string, string>();
    const elsewhere = createClient(stack.server.url, stack.server.anonKey, {
      auth: {
        storage: {
          getItem: (k: string) => memory.get(k) ?? null,
          setItem: (k: string, v: string) => void memory.set(k, v),
          removeItem: (k: string) => void memory.delete(k),
        },
        autoRefreshToken: false,
      },
    } as never);
    const signedIn = await elsewhere.auth.signInWithPassword(user);
    expect(signedIn.error).toBeNull();
    expect((await elsewhere.from('folders').select('name')).data).toEqual([]);
    elsewhere.auth.dispose();
  });

  it('a reload keeps the verified session; another device gets the code step too', async () => {
    await page.reload();
    await page.locator('.rows li[data-name="Taxes"]').waitFor();
    const other = await (await stack.newContext()).newPage();
    await other.goto(`${stack.site.url}/sign-in`);
    await other.getByLabel('Email').fill(user.email);
    await other.getByLabel('Password').fill(user.password);
    await other.getByRole('button', { name: 'Sign in' }).click();
    await other.getByRole('heading', { name: '2-step verification' }).waitFor();
    await other.getByRole('button', { name: 'Sign in with a different account' }).click();
    await other.getByRole('heading', { name: 'Sign in' }).waitFor();
  });

  it('turns it off: the next sign-in needs the password only', async () => {
    await page.goto(`${stack.site.url}/settings`);
    const section = page.getByRole('region', { name: '2-step verification' });
    await section.getByRole('button', { name: 'Turn off 2-step verification' }).click();
    await section.getByText('Off.').waitFor();
    await page.getByRole('banner').getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    await page.goto(`${stack.site.url}/files`);
    await page.locator('.rows li[data-name="Taxes"]').waitFor();
    expect(errors).toEqual([]);
  });
});
