/**
 * An invitation by mail, as a new person lives it: someone shares a folder with an address
 * that has no account; the mail (in the server's outbox) links to /invite/<token>; the invited
 * person opens it in their own browser, creates an account with that address and lands in the
 * shared folder; the used link then says so.
 */
import type { Client } from '@app/backend-sdk';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { file, folder, memoryClient, rpc } from '../test/backend/support';
import { expectAccessible } from './axe';
import { type Stack, startStack, watchErrors } from './stack';

describe('invitation mails', () => {
  let stack: Stack;
  let owner: Client;
  let ownerEmail = '';
  let plansId = '';
  const invitee = `invited-${Date.now()}@example.com`;

  async function outbox(to: string) {
    const res = await fetch(`${stack.server.url}/_dev/mail?to=${encodeURIComponent(to)}`, {
      headers: { apikey: stack.server.serviceRoleKey },
    });
    return (await res.json()) as Array<{ subject: string; text: string; links: string[] }>;
  }

  const heading = (page: Page) => page.getByRole('heading', { level: 1 });

  beforeAll(async () => {
    stack = await startStack();
    // The owner, through the API as Drive's own client would: a folder with a file in it.
    owner = memoryClient(stack.server);
    ownerEmail = `ana-${Date.now()}@example.com`;
    const signedUp = await owner.auth.signUp({
      email: ownerEmail,
      password: 'correct horse battery',
      options: { data: { display_name: 'Ana' } },
    });
    expect(signedUp.error).toBeNull();
    const plans = await folder(owner, 'Plans');
    plansId = plans.id;
    await file(owner, 'budget.txt', plans.id, 'numbers');
  });
  afterAll(() => stack?.stop());

  it('mails a link that lets a new person sign up and open the shared folder', async () => {
    const shared = await rpc<Array<{ pending: boolean }>>(owner, 'share_with', {
      p_kind: 'folder',
      p_id: plansId,
      p_email: invitee,
      p_role: 'editor',
    });
    expect(shared).toEqual([expect.objectContaining({ pending: true, role: 'editor' })]);
    // What the share dialog does after sharing: the mail goes out at once.
    const sent = await owner.functions.invoke('notify', { body: {} });
    expect(sent.error).toBeNull();
    expect(sent.data).toEqual({ sent: 1, failed: 0 });

    const [mail] = await outbox(invitee);
    expect(mail?.subject).toBe('Ana shared “Plans” with you');
    const link = mail?.links[0] ?? '';
    expect(link).toMatch(new RegExp(`^${stack.site.url}/invite/[0-9a-f]{64}$`));

    const context = await stack.newContext();
    const page = await context.newPage();
    const errors = watchErrors(page);
    await page.goto(link);
    await heading(page).getByText('You’re invited').waitFor();
    await expect
      .poll(() => page.locator('.auth-card').textContent())
      .toContain('Ana shared the folder “Plans” with you, as Editor.');
    await expectAccessible(page, 'the invitation page, signed out');

    await page.getByRole('link', { name: 'Create an account' }).click();
    await heading(page).getByText('Create your account').waitFor();
    expect(await page.getByLabel('Email').inputValue()).toBe(invitee);
    await page.getByLabel('Display name').fill('Bea');
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Create account' }).click();

    // Back through the invitation, into the shared folder with its file.
    await page.waitForURL(`${stack.site.url}/files/${plansId}`);
    await page.locator('.rows li[data-name="budget.txt"]').waitFor();
    expect(await rpc(owner, 'list_access', { p_kind: 'folder', p_id: plansId })).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ email: invitee, role: 'editor', pending: false }),
      ]),
    );

    // The link was used: a second visit says so, signed in or not.
    await page.goto(link);
    await page.getByText('This invitation was already used or withdrawn.').waitFor();
    await expectAccessible(page, 'a used invitation, signed in');
    const stranger = await (await stack.newContext()).newPage();
    await stranger.goto(link);
    await heading(stranger).getByText('Invitation unavailable').waitFor();
    expect(await stranger.locator('.auth-card').textContent()).not.toContain('Plans');
    await expectAccessible(stranger, 'a used invitation, signed out');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('signs in from the invitation and comes back; the owner’s own invitation opens the folder', async () => {
    const other = `other-${Date.now()}@example.com`;
    await rpc(owner, 'share_with', {
      p_kind: 'folder',
      p_id: plansId,
      p_email: other,
      p_role: 'viewer',
    });
    expect((await owner.functions.invoke('notify', { body: {} })).data).toEqual({
      sent: 1,
      failed: 0,
    });
    const link = (await outbox(other))[0]?.links[0] ?? '';
    const page = await (await stack.newContext()).newPage();
    const errors = watchErrors(page);
    await page.goto(link);
    await page.getByRole('link', { name: 'Sign in' }).click();
    await heading(page).getByText('Sign in').waitFor();
    expect(await page.getByLabel('Email').inputValue()).toBe(other);
    // The owner, forwarded their own invitation, signs in with their own address.
    await page.getByLabel('Email').fill(ownerEmail);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${stack.site.url}/files/${plansId}`);
    await page.locator('.rows li[data-name="budget.txt"]').waitFor();
    // Still pending for the invited address: opening one's own item took nothing.
    expect(await rpc(owner, 'list_access', { p_kind: 'folder', p_id: plansId })).toEqual(
      expect.arrayContaining([expect.objectContaining({ email: other, pending: true })]),
    );
    expect(errors).toEqual([]);
  });
});
