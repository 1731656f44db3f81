import type { RunningServer } from '@app/backend-server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type AuthChangeEvent,
  createAuthClient,
  memoryStorage,
  type SessionStorage,
} from '../src/auth/index';
import { freshEmail, lastMail, startSdkServer } from './support/server';

let server: RunningServer;
beforeAll(async () => {
  server = await startSdkServer();
});
afterAll(async () => {
  await server?.stop();
});

const PASSWORD = 'correct horse 1';
/** The app's page the links come back to (on the site URL, which the server allows). */
const app = () => `${server.url}/reset-password?from=mail`;

/** A browser's address bar, as the SDK sees it: `location.href` and `history.replaceState`. */
function addressBar(href: string) {
  const bar = {
    location: { href },
    history: {
      state: { app: 1 },
      replaceState(_state: unknown, _title: string, url: string) {
        bar.location.href = url;
      },
    },
  };
  Object.assign(globalThis, bar);
  return bar;
}
afterEach(() => {
  delete (globalThis as { location?: unknown }).location;
  delete (globalThis as { history?: unknown }).history;
});

/** Follows the link of the newest mail to `to` and returns where the server redirects. */
async function followMail(to: string): Promise<string> {
  const link = (await lastMail(server, to)).links.find((l) => l.includes('/verify'));
  if (!link) throw new Error(`no link in the mail to ${to}`);
  const hop = await fetch(link, { redirect: 'manual' });
  expect(hop.status).toBe(303);
  return hop.headers.get('location') ?? '';
}

async function newUser(storage: SessionStorage = memoryStorage()) {
  const email = freshEmail('redirect');
  const auth = createAuthClient(server.url, server.anonKey, { storage });
  expect((await auth.signUp({ email, password: PASSWORD })).error).toBeNull();
  await auth.signOut();
  return email;
}

function recordEvents(auth: ReturnType<typeof createAuthClient>) {
  const events: AuthChangeEvent[] = [];
  auth.onAuthStateChange((event) => {
    events.push(event);
  });
  return events;
}

const settle = () => new Promise((r) => setTimeout(r, 20));

describe('detectSessionInUrl', () => {
  it('signs in from a recovery link (implicit flow) and cleans the address bar', async () => {
    const email = await newUser();
    const requester = createAuthClient(server.url, server.anonKey, { storage: memoryStorage() });
    expect((await requester.resetPasswordForEmail(email, { redirectTo: app() })).error).toBeNull();
    const target = await followMail(email);
    expect(target.startsWith(`${app()}#access_token=`)).toBe(true);
    expect(target).toContain('type=recovery');

    const bar = addressBar(target);
    const auth = createAuthClient(server.url, server.anonKey, { storage: memoryStorage() });
    const events = recordEvents(auth);
    await auth.ready;
    await settle();
    expect(events).toEqual(['INITIAL_SESSION', 'PASSWORD_RECOVERY']);
    expect(bar.location.href).toBe(app());
    const { data } = await auth.getSession();
    expect(data.session?.user.email).toBe(email);
    // The recovery session may set the new password.
    expect((await auth.updateUser({ password: 'another horse 2' })).error).toBeNull();
    const again = createAuthClient(server.url, server.anonKey, { storage: memoryStorage() });
    expect(
      (await again.signInWithPassword({ email, password: 'another horse 2' })).error,
    ).toBeNull();
  });

  it('exchanges a PKCE code from a magic link with the stored verifier', async () => {
    const storage = memoryStorage();
    const email = await newUser();
    const first = createAuthClient(server.url, server.anonKey, { storage, flowType: 'pkce' });
    const sent = await first.signInWithOtp({ email, options: { emailRedirectTo: app() } });
    expect(sent.error).toBeNull();
    const target = await followMail(email);
    expect(target.startsWith(`${app()}&code=`)).toBe(true);

    const bar = addressBar(target);
    const auth = createAuthClient(server.url, server.anonKey, { storage, flowType: 'pkce' });
    const events = recordEvents(auth);
    await auth.ready;
    await settle();
    expect(events).toEqual(['INITIAL_SESSION', 'SIGNED_IN']);
    expect(bar.location.href).toBe(app());
    expect((await auth.getUser()).data.user?.email).toBe(email);
  });

  it('leaves the URL and the session alone when turned off', async () => {
    const email = await newUser();
    const requester = createAuthClient(server.url, server.anonKey, { storage: memoryStorage() });
    await requester.resetPasswordForEmail(email, { redirectTo: app() });
    const target = await followMail(email);
    const bar = addressBar(target);
    const auth = createAuthClient(server.url, server.anonKey, {
      storage: memoryStorage(),
      detectSessionInUrl: false,
    });
    await auth.ready;
    expect(bar.location.href).toBe(target);
    expect((await auth.getSession()).data.session).toBeNull();
  });

  it('keeps the stored session when the link does not sign in', async () => {
    const storage = memoryStorage();
    const email = await newUser();
    const signedIn = createAuthClient(server.url, server.anonKey, { storage });
    expect((await signedIn.signInWithPassword({ email, password: PASSWORD })).error).toBeNull();
    addressBar(`${app()}#access_token=not.a.token&refresh_token=nope&type=recovery`);
    const auth = createAuthClient(server.url, server.anonKey, { storage });
    await auth.ready;
    expect((await auth.getSession()).data.session?.user.email).toBe(email);
  });

  it('leaves an error redirect for the app to show', async () => {
    const href = `${app()}#error=access_denied&error_code=otp_expired&error_description=Email+link+is+invalid+or+has+expired`;
    const bar = addressBar(href);
    const auth = createAuthClient(server.url, server.anonKey, { storage: memoryStorage() });
    await auth.ready;
    expect(bar.location.href).toBe(href);
    expect((await auth.getSession()).data.session).toBeNull();
  });
});
