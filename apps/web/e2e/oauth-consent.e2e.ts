/**
 * Drive as an OAuth 2.1 server: another app sends the user to Drive's consent page, which
 * names the app and what it may see; Allow sends the browser back to the app with a code,
 * Deny with `access_denied`.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from './axe';
import { type Stack, signUpNewUser, startStack, watchErrors } from './stack';

const CALLBACK = 'http://localhost:4999/callback';

describe('the OAuth consent page', () => {
  let stack: Stack;
  let page: Page;
  let errors: string[];
  let clientId: string;

  beforeAll(async () => {
    stack = await startStack();
    const key = stack.server.serviceRoleKey;
    const res = await fetch(`${stack.server.url}/auth/v1/admin/oauth/clients`, {
      method: 'POST',
      headers: { apikey: key, authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Notes CLI',
        client_uri: 'https://notes.example.com',
        redirect_uris: [CALLBACK],
        token_endpoint_auth_method: 'none',
      }),
    });
    clientId = ((await res.json()) as { client_id: string }).client_id;
    page = await (await stack.newContext()).newPage();
    errors = watchErrors(page);
    // The other app is not running: its callback is answered here.
    await page.route(`${CALLBACK}**`, (route) => route.fulfill({ body: 'back in the app' }));
    await signUpNewUser(page, stack, 'Grace');
  });
  afterAll(() => stack?.stop());

  /** What the other app starts; the consent page's address with its authorization_id. */
  async function consentUrl(): Promise<string> {
    const query = new URLSearchParams({
      client_id: clientId,
      redirect_uri: CALLBACK,
      response_type: 'code',
      scope: 'email profile',
      state: 'st-1',
      code_challenge: createHash('sha256')
        .update(randomBytes(32).toString('base64url'))
        .digest('base64url'),
      code_challenge_method: 'S256',
    });
    const res = await fetch(`${stack.server.url}/auth/v1/oauth/authorize?${query}`, {
      redirect: 'manual',
    });
    const id = new URL(res.headers.get('location') ?? '').searchParams.get('authorization_id');
    return `${stack.site.url}/oauth/consent?authorization_id=${id}`;
  }

  it('names the app and the permissions; Deny goes back with access_denied', async () => {
    await page.goto(await consentUrl());
    await page
      .getByRole('heading', { name: 'Notes CLI wants to use your Drive account' })
      .waitFor();
    const permissions = page.getByRole('list', { name: 'Permissions' });
    expect(await permissions.getByRole('listitem').allTextContents()).toEqual([
      'See your email address',
      'See your name and picture',
    ]);
    await expectAccessible(page, 'the consent page');
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.waitForURL((url) => url.href.startsWith(CALLBACK));
    const back = new URL(page.url());
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('state')).toBe('st-1');
  });

  it('Allow goes back with a code; the next request is approved without asking', async () => {
    await page.goto(await consentUrl());
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL((url) => url.href.startsWith(CALLBACK));
    expect(new URL(page.url()).searchParams.get('code')).toBeTruthy();
    await page.goto(await consentUrl());
    await page.waitForURL((url) => url.href.startsWith(CALLBACK));
    expect(new URL(page.url()).searchParams.get('code')).toBeTruthy();
    expect(errors).toEqual([]);
  });

  it('an unknown request says so', async () => {
    await page.goto(`${stack.site.url}/oauth/consent?authorization_id=nope`);
    await page.getByRole('heading', { name: 'This request is no longer valid' }).waitFor();
  });
});
