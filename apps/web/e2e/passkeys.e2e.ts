import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { CDPSession, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from './axe';
import { type Stack, startStack, watchErrors } from './stack';

const shots = fileURLToPath(new URL('../.artifacts/screenshots/', import.meta.url));

interface VirtualCredential {
  credentialId: string;
  isResidentCredential: boolean;
  rpId: string;
  userHandle?: string;
  signCount: number;
}

/**
 * A platform authenticator in the browser (Chrome DevTools Protocol `WebAuthn` domain): it
 * answers the page's `navigator.credentials` as a phone or laptop with a screen lock would,
 * the user always present and verified.
 */
async function addVirtualAuthenticator(page: Page) {
  const cdp: CDPSession = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return {
    async credentials(): Promise<VirtualCredential[]> {
      const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
      return credentials as VirtualCredential[];
    },
  };
}

describe('passkeys, as a new user', () => {
  let stack: Stack;
  let page: Page;
  let errors: string[];
  let authenticator: Awaited<ReturnType<typeof addVirtualAuthenticator>>;
  const email = `lin-${Date.now()}@example.com`;
  const password = 'correct horse battery';

  beforeAll(async () => {
    mkdirSync(shots, { recursive: true });
    stack = await startStack();
    page = await (await stack.newContext()).newPage();
    errors = watchErrors(page);
    authenticator = await addVirtualAuthenticator(page);
    await page.goto(`${stack.namedUrl}/sign-up`);
    await page.getByLabel('Display name').fill('Lin');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('toolbar', { name: 'Folder actions' }).waitFor();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const section = () => page.getByRole('region', { name: 'Passkeys' });
  const signOut = async () => {
    await page.goto(`${stack.namedUrl}/settings`);
    await page
      .getByRole('region', { name: 'Sessions' })
      .getByRole('button', { name: 'Sign out', exact: true })
      .click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  };

  it('adds a passkey in Settings: the device creates it, the list shows it', async () => {
    await page.goto(`${stack.namedUrl}/settings`);
    await section().getByText('No passkeys yet.').waitFor();
    await expectAccessible(page, 'Settings with the passkeys section');
    await section().getByRole('button', { name: 'Add a passkey' }).click();
    await section().getByText('Passkey added.', { exact: false }).waitFor();
    const list = section().getByRole('list', { name: 'Your passkeys' });
    await list.getByText('Passkey', { exact: true }).waitFor();
    await list.getByText('not used yet', { exact: false }).waitFor();
    // The device holds one discoverable credential for this site, made for this user.
    const held = await authenticator.credentials();
    expect(held).toHaveLength(1);
    expect(held[0]).toMatchObject({ isResidentCredential: true, rpId: 'localhost' });
    await page.screenshot({ path: `${shots}passkeys-settings.png` });
    await expectAccessible(page, 'the passkey list');
  });

  it('renames it', async () => {
    await section().getByRole('button', { name: 'Rename Passkey' }).click();
    const field = section().getByLabel('Passkey name');
    await field.fill('   ');
    await section().getByRole('button', { name: 'Save' }).click();
    await section().getByText('Give the passkey a name.').waitFor();
    await expectAccessible(page, 'the rename form with a problem');
    await field.fill('Work laptop');
    await section().getByRole('button', { name: 'Save' }).click();
    await section().getByRole('button', { name: 'Rename Work laptop' }).waitFor();
    expect(await section().getByLabel('Passkey name').count()).toBe(0);
  });

  it('signs in with the passkey, no email or password typed', async () => {
    await signOut();
    await page.getByRole('button', { name: 'Sign in with a passkey' }).waitFor();
    await expectAccessible(page, 'the sign-in screen with the passkey button');
    await page.screenshot({ path: `${shots}passkeys-sign-in.png` });
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    // Signed in, back where the user signed out.
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/settings');
    await section().getByText('last used', { exact: false }).waitFor();
    expect((await authenticator.credentials())[0]?.signCount).toBeGreaterThan(0);
  });

  it('removes it after asking; the device’s passkey then no longer signs in', async () => {
    await section().getByRole('button', { name: 'Remove Work laptop' }).click();
    const confirm = section().getByRole('group', { name: 'Remove “Work laptop”?' });
    await confirm
      .getByText('You will no longer be able to sign in with it.', { exact: false })
      .waitFor();
    await expectAccessible(page, 'the remove confirmation');
    await confirm.getByRole('button', { name: 'Keep it' }).click();
    await section().getByRole('button', { name: 'Remove Work laptop' }).click();
    await section().getByRole('button', { name: 'Remove passkey' }).click();
    await section().getByText('No passkeys yet.').waitFor();

    await signOut();
    // The device still offers its credential, but the account no longer knows it.
    expect(await authenticator.credentials()).toHaveLength(1);
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toBe(
      'That passkey was not accepted. Try again, or sign in with your email and password.',
    );
    await expectAccessible(page, 'the sign-in screen with a refused passkey');
    // The password still works.
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    expect(errors).toEqual([]);
  });

  it('hides passkeys where they cannot work (the page opened by IP address)', async () => {
    const other = await (await stack.newContext()).newPage();
    await other.goto(`${stack.site.url}/sign-in`);
    await other.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
    expect(await other.getByRole('button', { name: 'Sign in with a passkey' }).count()).toBe(0);
    await other.close();
  });
});
