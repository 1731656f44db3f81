import type { RunningServer } from '@app/backend-server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type AuthChangeEvent, createAuthClient, memoryStorage } from '../src/auth/index';
import { freshEmail, startSdkServer } from './support/server';

// OAuth through the server's emulated provider (a local page instead of GitHub / Google),
// with this SDK: the browser navigation, the redirect back (both flows), identities.
let server: RunningServer;
beforeAll(async () => {
  server = await startSdkServer({
    emulateProviders: true,
    manualLinking: true,
    external: { github: {}, 'custom:acme': { issuer: 'https://id.acme.test' } },
  });
});
afterAll(async () => {
  await server?.stop();
});

const PASSWORD = 'correct horse 1';
const app = () => `${server.url}/welcome`;

/** A browser as the SDK sees it: `window.location.assign`, `document`, the address bar. */
function browser(href = app()) {
  const assigned: string[] = [];
  const bar = {
    window: { location: { assign: (url: string) => assigned.push(url) } },
    document: {},
    location: { href },
    history: {
      state: null,
      replaceState(_s: unknown, _t: string, url: string) {
        bar.location.href = url;
      },
    },
  };
  Object.assign(globalThis, bar);
  return { assigned, bar };
}
afterEach(() => {
  for (const k of ['window', 'document', 'location', 'history'])
    delete (globalThis as Record<string, unknown>)[k];
});

/** The provider's page, answered as a user typing `email`; returns the app URL it ends on. */
async function throughProvider(start: string, email: string): Promise<string> {
  let url = new URL(start);
  if (url.pathname.endsWith('/authorize')) {
    url = new URL((await fetch(url, { redirect: 'manual' })).headers.get('location') ?? '');
  }
  expect(url.pathname).toBe('/auth/v1/emulator');
  const res = await fetch(new URL('emulator', url), {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      state: url.searchParams.get('state') ?? '',
      provider: url.searchParams.get('provider') ?? '',
      email,
      name: 'Octo Cat',
      email_verified: 'true',
    }),
  });
  const callback = await fetch(res.headers.get('location') ?? '', { redirect: 'manual' });
  expect(callback.status).toBe(302);
  return callback.headers.get('location') ?? '';
}

const events = (auth: ReturnType<typeof createAuthClient>) => {
  const seen: AuthChangeEvent[] = [];
  auth.onAuthStateChange((e) => {
    seen.push(e);
  });
  return seen;
};

describe('signInWithOAuth', () => {
  it('navigates the browser to the provider; the implicit redirect signs in with the provider token', async () => {
    const { assigned } = browser();
    const auth = createAuthClient(server.url, server.anonKey, {
      storage: memoryStorage(),
      detectSessionInUrl: false,
    });
    const { data, error } = await auth.signInWithOAuth({
      provider: 'github',
      options: { redirectTo: app(), queryParams: { prompt: 'consent' } },
    });
    expect(error).toBeNull();
    expect(assigned).toEqual([data.url]);
    expect(data.url).toBe(
      `${server.url}/auth/v1/authorize?provider=github&redirect_to=${encodeURIComponent(app())}&prompt=consent`,
    );

    const back = await throughProvider(data.url ?? '', freshEmail('octo'));
    expect(back.startsWith(`${app()}#access_token=`)).toBe(true);
    // The page the provider sent the user back to: the session is read from the address bar.
    const { bar } = browser(back);
    const landed = createAuthClient(server.url, server.anonKey, { storage: memoryStorage() });
    const seen = events(landed);
    const { data: got } = await landed.getSession();
    expect(got.session?.user.app_metadata.provider).toBe('github');
    expect(got.session?.provider_token).toMatch(/^emulated-/);
    expect(bar.location.href).toBe(app());
    await expect.poll(() => seen).toEqual(['INITIAL_SESSION', 'SIGNED_IN']);
  });

  it('skipBrowserRedirect returns the URL only; PKCE comes back with a code to exchange', async () => {
    const { assigned } = browser();
    const auth = createAuthClient(server.url, server.anonKey, {
      storage: memoryStorage(),
      flowType: 'pkce',
      detectSessionInUrl: false,
    });
    const { data } = await auth.signInWithOAuth({
      provider: 'custom:acme',
      options: { redirectTo: app(), skipBrowserRedirect: true },
    });
    expect(assigned).toEqual([]);
    expect(new URL(data.url ?? '').searchParams.get('code_challenge_method')).toBe('s256');
    const back = new URL(await throughProvider(data.url ?? '', freshEmail('acme')));
    const seen = events(auth);
    const { data: signedIn, error } = await auth.exchangeCodeForSession(
      back.searchParams.get('code') ?? '',
    );
    expect(error).toBeNull();
    expect(signedIn.user?.identities?.[0]).toMatchObject({
      provider: 'custom:acme',
      identity_data: { iss: 'https://id.acme.test', name: 'Octo Cat' },
    });
    expect(signedIn.session?.provider_token).toMatch(/^emulated-/);
    await expect.poll(() => seen).toContain('SIGNED_IN');
  });
});

describe('identities', () => {
  it('lists, links through the provider, unlinks, and refuses the last one', async () => {
    const auth = createAuthClient(server.url, server.anonKey, {
      storage: memoryStorage(),
      flowType: 'pkce',
      detectSessionInUrl: false,
    });
    const email = freshEmail('owner');
    expect((await auth.signUp({ email, password: PASSWORD })).error).toBeNull();
    const first = await auth.getUserIdentities();
    expect(first.data?.identities.map((i) => i.provider)).toEqual(['email']);

    const { assigned } = browser();
    const link = await auth.linkIdentity({ provider: 'github', options: { redirectTo: app() } });
    expect(link.error).toBeNull();
    expect(assigned).toEqual([link.data.url]);
    expect(new URL(link.data.url ?? '').pathname).toBe('/auth/v1/emulator');
    const back = new URL(await throughProvider(link.data.url ?? '', freshEmail('gh')));
    await auth.exchangeCodeForSession(back.searchParams.get('code') ?? '');

    const linked = await auth.getUserIdentities();
    const github = linked.data?.identities.find((i) => i.provider === 'github');
    expect(github).toMatchObject({ identity_data: { name: 'Octo Cat' } });
    expect(await auth.unlinkIdentity(github as never)).toEqual({ data: {}, error: null });
    const only = (await auth.getUserIdentities()).data?.identities ?? [];
    const last = await auth.unlinkIdentity(only[0] as never);
    expect(last.data).toBeNull();
    expect(last.error).toMatchObject({ status: 422, code: 'single_identity_not_deletable' });
  });

  it('answers without a session as the official client does', async () => {
    const auth = createAuthClient(server.url, server.anonKey, { storage: memoryStorage() });
    const listed = await auth.getUserIdentities();
    expect(listed.error?.message).toBe('Auth session missing!');
    const link = await auth.linkIdentity({ provider: 'github' });
    expect(link.data).toEqual({ provider: null, url: null });
    expect(link.error?.message).toBe('Auth session missing!');
  });
});

describe('features this server does not offer', () => {
  it('reports SSO and Web3 as disabled', async () => {
    const auth = createAuthClient(server.url, server.anonKey, { storage: memoryStorage() });
    const sso = await auth.signInWithSSO({ providerId: crypto.randomUUID() });
    expect(sso).toMatchObject({
      data: null,
      error: { status: 404, code: 'saml_provider_disabled' },
    });
    const web3 = await auth.signInWithWeb3({
      chain: 'ethereum',
      message: 'm',
      signature: '0x00',
    });
    expect(web3.data).toEqual({ user: null, session: null });
    expect(web3.error).toMatchObject({ status: 422, code: 'web3_provider_disabled' });
  });
});
