import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/index';
import type { RunningServer } from '../../src/server';
import { databaseKind, startTestServer } from '../support/server';
import { followToApp, fragmentOf } from './oauth-support';
import { api, claimsOf, client, uniqueEmail } from './support';

// The emulated provider: each configured provider's authorize step is a local page; the
// sign-in then goes through the real callback (state, PKCE, identities).
let server: RunningServer;
const APP = 'app.test';

beforeAll(async () => {
  server = await startTestServer({
    auth: {
      rateLimits: false,
      siteUrl: `http://${APP}`,
      redirectUrls: [`http://${APP}/**`],
      emulateProviders: true,
      manualLinking: true,
      external: {
        github: {},
        google: {},
        // Never contacted while emulated.
        'custom:acme': { issuer: 'http://127.0.0.1:9/acme', displayName: 'Acme ID' },
      },
    },
  });
});
afterAll(() => server?.stop());

/** Starts a flow; returns the emulator page's URL. */
async function start(provider: string, path = '/done') {
  const res = await api(
    server,
    `/authorize?provider=${provider}&redirect_to=${encodeURIComponent(`http://${APP}${path}`)}`,
  );
  expect(res.status).toBe(302);
  return new URL(res.headers.get('location') ?? '');
}

/** Submits the emulator's form as a browser would. */
async function submit(page: URL, fields: Record<string, string>) {
  return fetch(new URL('emulator', page), {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      state: page.searchParams.get('state') ?? '',
      provider: page.searchParams.get('provider') ?? '',
      ...fields,
    }),
  });
}

describe(`the emulated provider (${databaseKind()})`, () => {
  it('shows a local sign-in page for the configured provider', async () => {
    const page = await start('github');
    expect(`${page.origin}${page.pathname}`).toBe(`${server.url}/auth/v1/emulator`);
    const res = await fetch(page);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await res.text();
    expect(html).toContain('<title>Sign in with GitHub (emulated)</title>');
    expect(html).toContain('<label for="email">Email</label>');
    expect(html).toContain('name="state"');
  });

  it('signs up a typed identity, then offers it again and signs the same user in', async () => {
    const email = uniqueEmail('emu');
    const first = await start('github');
    const typed = await submit(first, {
      email,
      name: 'Ada Lovelace',
      avatar: 'https://pics.example/ada.png',
      email_verified: 'true',
    });
    expect(typed.status).toBe(303);
    const callback = new URL(typed.headers.get('location') ?? '');
    expect(`${callback.origin}${callback.pathname}`).toBe(`${server.url}/auth/v1/callback`);
    const back = await followToApp(callback.href, APP);
    const token = fragmentOf(back).get('access_token') ?? '';
    const user = (await (await api(server, '/user', { token })).json()) as {
      id: string;
      email: string;
      identities: { id: string; identity_data: Record<string, unknown> }[];
    };
    expect(user.email).toBe(email);
    const sub = user.identities[0]?.id ?? '';
    expect(sub).toMatch(/^\d{8}$/);
    // GitHub's own mapping of the profile the emulator plays.
    expect(user.identities[0]?.identity_data).toEqual({
      iss: 'https://api.github.com',
      sub,
      name: 'Ada Lovelace',
      preferred_username: email.split('@')[0],
      email,
      email_verified: true,
      phone_verified: false,
      full_name: 'Ada Lovelace',
      avatar_url: 'https://pics.example/ada.png',
      provider_id: sub,
      user_name: email.split('@')[0],
    });

    // The page now offers that identity; picking it signs the same user in.
    const second = await start('github');
    const html = await (await fetch(second)).text();
    expect(html).toContain(`<input type="hidden" name="identity" value="${sub}">`);
    expect(html).toContain(email);
    const picked = await submit(second, { identity: sub });
    const again = await followToApp(picked.headers.get('location') ?? '', APP);
    expect(claimsOf(fragmentOf(again).get('access_token') ?? '').sub).toBe(user.id);

    // Typing the same email again is the same provider account.
    const third = await start('github');
    const retyped = await followToApp(
      (await submit(third, { email, email_verified: 'true' })).headers.get('location') ?? '',
      APP,
    );
    expect(claimsOf(fragmentOf(retyped).get('access_token') ?? '').sub).toBe(user.id);
  });

  it('goes through PKCE with the official client, for Google and an OIDC provider', async () => {
    for (const [provider, iss] of [
      ['google', 'https://accounts.google.com'],
      ['custom:acme', 'http://127.0.0.1:9/acme'],
    ] as const) {
      const supabase = client(server, { flowType: 'pkce' });
      const { data } = await supabase.auth.signInWithOAuth({
        provider: provider as 'google',
        options: { redirectTo: `http://${APP}/pkce`, skipBrowserRedirect: true },
      });
      const emulator = new URL(
        (await fetch(data.url ?? '', { redirect: 'manual' })).headers.get('location') ?? '',
      );
      const email = uniqueEmail(provider.replace(':', '-'));
      const res = await submit(emulator, { email, name: 'Grace', email_verified: 'true' });
      const back = await followToApp(res.headers.get('location') ?? '', APP);
      const { data: signedIn, error } = await supabase.auth.exchangeCodeForSession(
        back.searchParams.get('code') ?? '',
      );
      expect(error).toBeNull();
      expect(signedIn.user?.identities?.[0]).toMatchObject({
        provider,
        email,
        identity_data: { iss, email, name: 'Grace', email_verified: true },
      });
      expect(signedIn.session?.provider_token).toMatch(/^emulated-/);
    }
  });

  it('Cancel answers as a provider whose user said no', async () => {
    const page = await start('github', '/cancelled');
    const res = await submit(page, { cancel: 'true' });
    const back = await followToApp(res.headers.get('location') ?? '', APP);
    expect(back.pathname).toBe('/cancelled');
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('error_description')).toBe('The user denied the request');
  });

  it('an unverified typed email is not confirmed (and with autoconfirm on, still signs in)', async () => {
    const page = await start('github');
    const res = await submit(page, { email: uniqueEmail('unv') });
    const back = await followToApp(res.headers.get('location') ?? '', APP);
    const token = fragmentOf(back).get('access_token') ?? '';
    const user = (await (await api(server, '/user', { token })).json()) as {
      identities: { identity_data: { email_verified: boolean } }[];
    };
    expect(user.identities[0]?.identity_data.email_verified).toBe(false);
  });

  it('refuses bad input and unknown flows with a page that says so', async () => {
    const page = await start('github');
    const bad = await submit(page, { email: 'not-an-email' });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('role="alert"');
    const unknown = await fetch(
      `${server.url}/auth/v1/emulator?provider=github&state=${crypto.randomUUID()}`,
    );
    expect(unknown.status).toBe(400);
    expect(await unknown.text()).toContain('This sign-in is unknown.');
    const wrongProvider = await fetch(
      `${server.url}/auth/v1/emulator?provider=google&state=${page.searchParams.get('state')}`,
    );
    expect(wrongProvider.status).toBe(400);
  });

  it('links an emulated identity to the signed-in user (manual linking)', async () => {
    const supabase = client(server, { flowType: 'pkce' });
    await supabase.auth.signUp({ email: uniqueEmail('owner'), password: 'secret-password' });
    const { data } = await supabase.auth.linkIdentity({
      provider: 'google',
      options: { redirectTo: `http://${APP}/linked`, skipBrowserRedirect: true },
    });
    const page = new URL(data.url ?? '');
    expect(page.pathname).toBe('/auth/v1/emulator');
    const res = await submit(page, { email: uniqueEmail('second'), email_verified: 'true' });
    const back = await followToApp(res.headers.get('location') ?? '', APP);
    const { data: linked } = await supabase.auth.exchangeCodeForSession(
      back.searchParams.get('code') ?? '',
    );
    expect(linked.user?.identities?.map((i) => i.provider)).toEqual(['email', 'google']);
  });
});

describe('where the emulated provider may run', () => {
  it('is off by default: no page', async () => {
    const plain = await startTestServer({
      auth: { external: { github: { clientId: 'a', secret: 'b' } } },
    });
    try {
      const res = await fetch(`${plain.url}/auth/v1/emulator?provider=github&state=x`);
      expect(res.status).toBe(404);
    } finally {
      await plain.stop();
    }
  });

  it('is refused when the server listens on a non-loopback address', async () => {
    await expect(
      resolveConfig({ host: '0.0.0.0', auth: { emulateProviders: true } }),
    ).rejects.toThrow(/loopback/);
    await expect(
      resolveConfig({ host: '192.168.1.20', auth: { emulateProviders: true } }),
    ).rejects.toThrow(/listens on 192\.168\.1\.20/);
    await expect(
      resolveConfig({ host: '::1', auth: { emulateProviders: true } }),
    ).resolves.toBeTruthy();
  });
});
