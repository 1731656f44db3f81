import type { RunningServer } from '@app/backend-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AuthChangeEvent,
  createAuthClient,
  memoryStorage,
  type Session,
} from '../src/auth/index';
import { createClient } from '../src/index';
import { officialClient } from './support/official';
import { type Recorded, recordingFetch } from './support/record';
import { freshEmail, lastMail, startSdkServer } from './support/server';

let server: RunningServer;
beforeAll(async () => {
  server = await startSdkServer();
});
afterAll(async () => {
  await server?.stop();
});

const PASSWORD = 'correct horse 1';

const wire = (r: Recorded) => {
  const h: Record<string, string> = {};
  for (const k of ['content-type', 'x-supabase-api-version', 'apikey'])
    if (r.headers[k] !== undefined) h[k] = r.headers[k];
  h.authorization = r.headers.authorization?.startsWith('Bearer ey')
    ? r.headers.authorization === `Bearer ${server.anonKey}`
      ? 'key'
      : 'user'
    : String(r.headers.authorization);
  return {
    method: r.method,
    path: r.path,
    query: r.query,
    headers: h,
    body: r.body ? JSON.parse(r.body) : null,
  };
};

/** Values that differ between two runs of the same flow (ids, tokens, times, emails). */
const VOLATILE =
  /^(id|user_id|identity_id|sub|access_token|refresh_token|expires_at|expires_in|created_at|updated_at|last_sign_in_at|email_confirmed_at|confirmed_at|confirmation_sent_at|recovery_sent_at|email|session_id|token|code_challenge)$/;
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shape);
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [
        k,
        VOLATILE.test(k) && v !== null && typeof v !== 'object' ? typeof v : shape(v),
      ]),
    );
  return value;
}
const errorOf = (e: unknown) => {
  const x = e as { status?: number; code?: string; message?: string } | null;
  return x ? { status: x.status, code: x.code as string | undefined, message: x.message } : null;
};

// biome-ignore lint/suspicious/noExplicitAny: the flows drive both clients' auth untyped
type Any = any;

describe('auth conformance with the official client (results and requests)', () => {
  const flows: [string, (auth: Any, email: string) => Promise<Any>][] = [
    [
      'sign up',
      (auth, email) =>
        auth.signUp({ email, password: PASSWORD, options: { data: { plan: 'free' } } }),
    ],
    [
      'sign in with password',
      async (auth, email) => {
        await auth.signUp({ email, password: PASSWORD });
        await auth.signOut({ scope: 'local' });
        return auth.signInWithPassword({ email, password: PASSWORD });
      },
    ],
    ['wrong password', (auth, email) => auth.signInWithPassword({ email, password: 'nope-nope' })],
    [
      'get and update user',
      async (auth, email) => {
        await auth.signUp({ email, password: PASSWORD });
        await auth.getUser();
        return auth.updateUser({ data: { name: 'Ada' } });
      },
    ],
    [
      'refresh',
      async (auth, email) => {
        await auth.signUp({ email, password: PASSWORD });
        return auth.refreshSession();
      },
    ],
    [
      'sign out',
      async (auth, email) => {
        await auth.signUp({ email, password: PASSWORD });
        const r = await auth.signOut({ scope: 'local' });
        return { error: r.error, session: (await auth.getSession()).data.session };
      },
    ],
    ['anonymous', (auth) => auth.signInAnonymously()],
    ['otp request', (auth, email) => auth.signInWithOtp({ email })],
    [
      'password reset request',
      (auth, email) => auth.resetPasswordForEmail(email, { redirectTo: 'http://localhost/cb' }),
    ],
    [
      'verify otp',
      async (auth, email) => {
        await auth.signInWithOtp({ email });
        return auth.verifyOtp({ email, token: (await lastMail(server, email)).otp, type: 'email' });
      },
    ],
    ['bad otp', (auth, email) => auth.verifyOtp({ email, token: '000000', type: 'email' })],
    ['get user signed out', (auth) => auth.getUser()],
    [
      'resend signup confirmation',
      (auth, email) =>
        auth.resend({ type: 'signup', email, options: { emailRedirectTo: 'http://localhost/cb' } }),
    ],
    [
      'sign out other sessions',
      async (auth, email) => {
        await auth.signUp({ email, password: PASSWORD });
        const r = await auth.signOut({ scope: 'others' });
        return { error: r.error, kept: (await auth.getSession()).data.session !== null };
      },
    ],
  ];

  it.each(flows)('%s', async (_name, flow) => {
    const ours = recordingFetch();
    const theirs = recordingFetch();
    const a = createAuthClient(server.url, server.anonKey, {
      fetch: ours.fetch,
      storage: memoryStorage(),
      autoRefreshToken: false,
    });
    const b = officialClient(server.url, server.anonKey, { fetch: theirs.fetch }).auth;
    const ra = await flow(a, freshEmail('ours'));
    const rb = await flow(b, freshEmail('theirs'));
    expect(shape(ra.data ?? null)).toEqual(shape(rb.data ?? null));
    // Client-side errors carry an SDK code where the official client has none (documented).
    const ours_ = errorOf(ra.error);
    if (ours_?.code === 'session_missing' && errorOf(rb.error)?.code === undefined)
      ours_.code = undefined;
    expect(ours_).toEqual(errorOf(rb.error));
    const strip = (log: Recorded[]) => shape(log.map(wire));
    expect(strip(ours.log)).toEqual(strip(theirs.log));
    a.dispose();
  });
});

describe('auth conformance in the PKCE flow', () => {
  it('sends the same challenge fields as the official client', async () => {
    const ours = recordingFetch();
    const theirs = recordingFetch();
    const a = createAuthClient(server.url, server.anonKey, {
      fetch: ours.fetch,
      storage: memoryStorage(),
      flowType: 'pkce',
    });
    const b = officialClient(server.url, server.anonKey, {
      fetch: theirs.fetch,
      flowType: 'pkce',
    }).auth;
    for (const auth of [a, b] as Any[]) {
      const email = freshEmail();
      await auth.signInWithOtp({ email, options: { emailRedirectTo: 'http://localhost/cb' } });
      await auth.resetPasswordForEmail(email, { redirectTo: 'http://localhost/reset' });
    }
    const strip = (log: Recorded[]) => shape(log.map(wire));
    expect(strip(ours.log)).toEqual(strip(theirs.log));
    expect(JSON.parse(ours.log[0]?.body ?? '{}').code_challenge_method).toBe('s256');
    a.dispose();
  });
});

describe('auth client', () => {
  it('emits the auth events in order, and listeners may await SDK calls', async () => {
    const client = createClient(server.url, server.anonKey, { auth: { storage: memoryStorage() } });
    const events: [AuthChangeEvent, boolean][] = [];
    const awaited: unknown[] = [];
    client.auth.onAuthStateChange(async (event, session) => {
      events.push([event, session !== null]);
      // Awaiting SDK calls inside a listener must not deadlock.
      const { data } = await client.auth.getSession();
      const rows = await client.from('books').select('id').limit(1);
      awaited.push([event, data.session?.access_token === session?.access_token, rows.error]);
    });
    const email = freshEmail();
    await client.auth.signUp({ email, password: PASSWORD });
    await client.auth.refreshSession();
    await client.auth.updateUser({ data: { x: 1 } });
    await client.auth.signOut();
    await new Promise((r) => setTimeout(r, 200));
    expect(events).toEqual([
      ['INITIAL_SESSION', false],
      ['SIGNED_IN', true],
      ['TOKEN_REFRESHED', true],
      ['USER_UPDATED', true],
      ['SIGNED_OUT', false],
    ]);
    expect(awaited).toHaveLength(5);
    for (const entry of awaited) expect((entry as unknown[])[2]).toBeNull();
    client.auth.dispose();
  });

  it('sends the user token to REST once signed in (RLS sees the user)', async () => {
    const client = createClient(server.url, server.anonKey, { auth: { storage: memoryStorage() } });
    const { data } = await client.auth.signUp({ email: freshEmail(), password: PASSWORD });
    const inserted = await client.from('todos').insert({ title: 'mine' }).select('owner').single();
    expect(inserted.data).toEqual({ owner: data.user?.id });
    client.auth.dispose();
  });

  it('refresh is single-flight: concurrent calls share one request', async () => {
    const rec = recordingFetch();
    const auth = createAuthClient(server.url, server.anonKey, {
      fetch: rec.fetch,
      storage: memoryStorage(),
    });
    await auth.signUp({ email: freshEmail(), password: PASSWORD });
    rec.clear();
    const results = await Promise.all(Array.from({ length: 5 }, () => auth.refreshSession()));
    expect(rec.log.filter((r) => r.path === '/auth/v1/token')).toHaveLength(1);
    const tokens = new Set(results.map((r) => r.data.session?.access_token));
    expect(tokens.size).toBe(1);
    expect(results.every((r) => r.error === null)).toBe(true);
    auth.dispose();
  });

  it('shares a refresh across tabs: the other tab adopts the new session without a request', async () => {
    const storage = memoryStorage();
    const recA = recordingFetch();
    const recB = recordingFetch();
    const tabA = createAuthClient(server.url, server.anonKey, {
      fetch: recA.fetch,
      storage,
      storageKey: 'shared-tabs',
      crossTab: true,
    });
    const signedUp = await tabA.signUp({ email: freshEmail(), password: PASSWORD });
    const tabB = createAuthClient(server.url, server.anonKey, {
      fetch: recB.fetch,
      storage,
      storageKey: 'shared-tabs',
      crossTab: true,
    });
    await tabB.ready;
    const seen: AuthChangeEvent[] = [];
    tabB.onAuthStateChange((event) => {
      seen.push(event);
    });
    const refreshed = await tabA.refreshSession();
    await new Promise((r) => setTimeout(r, 100));
    expect(seen).toContain('TOKEN_REFRESHED');
    expect((await tabB.getSession()).data.session?.access_token).toBe(
      refreshed.data.session?.access_token,
    );
    expect(recB.log.filter((r) => r.path === '/auth/v1/token')).toHaveLength(0);
    expect(recA.log.filter((r) => r.path === '/auth/v1/token')).toHaveLength(1);
    tabA.dispose();
    tabB.dispose();
    expect(signedUp.error).toBeNull();
  });

  it('a tab that missed the broadcast adopts the session in storage instead of presenting the spent token', async () => {
    const storage = memoryStorage();
    const recA = recordingFetch();
    const recC = recordingFetch();
    const options = { storage, storageKey: 'missed-broadcast', crossTab: true };
    const tabA = createAuthClient(server.url, server.anonKey, { ...options, fetch: recA.fetch });
    await tabA.signUp({ email: freshEmail(), password: PASSWORD });
    // Tab C shares the storage but hears no broadcast (its channel is gone, as in a frozen tab).
    const Channel = globalThis.BroadcastChannel;
    (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined;
    const tabC = createAuthClient(server.url, server.anonKey, { ...options, fetch: recC.fetch });
    (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = Channel;
    await tabC.ready;
    const spent = (await tabC.getSession()).data.session?.refresh_token;
    const refreshed = await tabA.refreshSession();
    expect((await tabC.getSession()).data.session?.refresh_token).toBe(spent);
    const adopted = await tabC.refreshSession();
    expect(adopted.error).toBeNull();
    expect(adopted.data.session?.refresh_token).toBe(refreshed.data.session?.refresh_token);
    expect(recC.log.filter((r) => r.path === '/auth/v1/token')).toHaveLength(0);
    tabA.dispose();
    tabC.dispose();
  });

  it('a rejected refresh token signs out; a network failure retries and keeps the session', async () => {
    let failNext = 0;
    const flaky = recordingFetch(async (input, init) => {
      if (failNext > 0) {
        failNext--;
        throw new TypeError('fetch failed');
      }
      return fetch(input, init);
    });
    const auth = createAuthClient(server.url, server.anonKey, {
      fetch: flaky.fetch,
      storage: memoryStorage(),
    });
    await auth.signUp({ email: freshEmail(), password: PASSWORD });
    failNext = 2;
    flaky.clear();
    const retried = await auth.refreshSession();
    expect(retried.error).toBeNull();
    expect(flaky.log.filter((r) => r.path === '/auth/v1/token')).toHaveLength(3);

    const events: AuthChangeEvent[] = [];
    auth.onAuthStateChange((e) => {
      events.push(e);
    });
    // Revoke every session of the user elsewhere, then refresh: the token is rejected.
    const session = retried.data.session as Session;
    const other = officialClient(server.url, server.anonKey).auth;
    await other.setSession({
      access_token: session.access_token,
      refresh_token: session.refresh_token,
    });
    await other.signOut({ scope: 'global' });
    const rejected = await auth.refreshSession();
    expect(rejected.error?.status).toBe(400);
    expect((await auth.getSession()).data.session).toBeNull();
    expect(events).toContain('SIGNED_OUT');
    auth.dispose();
  });

  it('auto-refreshes before expiry (clock injected ahead)', async () => {
    const offset = { ms: 0 };
    const timers = {
      setTimeout: (fn: () => void, ms: number) => setTimeout(fn, ms),
      clearTimeout: (id: unknown) => clearTimeout(id as ReturnType<typeof setTimeout>),
      now: () => Date.now() + offset.ms,
    };
    const auth = createAuthClient(server.url, server.anonKey, { storage: memoryStorage(), timers });
    const refreshed = new Promise<Session | null>((resolve) =>
      auth.onAuthStateChange((event, session) => {
        if (event === 'TOKEN_REFRESHED') resolve(session);
      }),
    );
    const { data } = await auth.signUp({ email: freshEmail(), password: PASSWORD });
    offset.ms = 3600_000 - 60_000; // now inside the refresh margin
    auth.startAutoRefresh();
    const session = await refreshed;
    expect(session?.refresh_token).not.toBe(data.session?.refresh_token);
    auth.dispose();
  });

  it('PASSWORD_RECOVERY after verifying a recovery code', async () => {
    const auth = createAuthClient(server.url, server.anonKey, { storage: memoryStorage() });
    const email = freshEmail();
    await auth.signUp({ email, password: PASSWORD });
    await auth.signOut();
    const events: AuthChangeEvent[] = [];
    auth.onAuthStateChange((e) => {
      events.push(e);
    });
    await auth.resetPasswordForEmail(email);
    const { otp } = await lastMail(server, email);
    const { error } = await auth.verifyOtp({ email, token: otp as string, type: 'recovery' });
    expect(error).toBeNull();
    expect(events).toContain('PASSWORD_RECOVERY');
    auth.dispose();
  });

  it('PKCE: a magic link redirect carries a code that exchangeCodeForSession turns into a session', async () => {
    const storage = memoryStorage();
    const rec = recordingFetch();
    const auth = createAuthClient(server.url, server.anonKey, {
      storage,
      flowType: 'pkce',
      fetch: rec.fetch,
    });
    const email = freshEmail();
    await auth.signUp({ email, password: PASSWORD });
    await auth.signOut();
    await auth.signInWithOtp({ email, options: { emailRedirectTo: 'http://localhost:5173/cb' } });
    const otpBody = JSON.parse(rec.log.find((r) => r.path === '/auth/v1/otp')?.body ?? '{}');
    expect(otpBody.code_challenge_method).toBe('s256');
    const link = (await lastMail(server, email)).links[0] as string;
    const res = await fetch(link, { redirect: 'manual' });
    const code = new URL(res.headers.get('location') as string).searchParams.get('code');
    expect(code).toBeTruthy();
    const { data, error } = await auth.exchangeCodeForSession(code as string);
    expect(error).toBeNull();
    expect(data.session?.user.email).toBe(email);
    expect(await storage.getItem(`${auth.storageKey}-code-verifier`)).toBeNull();
    auth.dispose();
  });

  it('setSession with tokens from elsewhere signs in', async () => {
    const source = createAuthClient(server.url, server.anonKey, { storage: memoryStorage() });
    const { data } = await source.signUp({ email: freshEmail(), password: PASSWORD });
    const target = createAuthClient(server.url, server.anonKey, { storage: memoryStorage() });
    const s = data.session as Session;
    const r = await target.setSession({
      access_token: s.access_token,
      refresh_token: s.refresh_token,
    });
    expect(r.error).toBeNull();
    expect(r.data.user?.id).toBe(data.user?.id);
    const bad = await target.setSession({ access_token: 'x', refresh_token: 'y' });
    expect(bad.error?.code).toBe('invalid_argument');
    source.dispose();
    target.dispose();
  });

  it('restores the session from storage on start', async () => {
    const storage = memoryStorage();
    const first = createAuthClient(server.url, server.anonKey, { storage });
    const { data } = await first.signUp({ email: freshEmail(), password: PASSWORD });
    first.dispose();
    const second = createAuthClient(server.url, server.anonKey, { storage });
    const events: [AuthChangeEvent, string | undefined][] = [];
    second.onAuthStateChange((e, s) => {
      events.push([e, s?.user.id]);
    });
    expect((await second.getSession()).data.session?.user.id).toBe(data.user?.id);
    await new Promise((r) => setTimeout(r, 10));
    expect(events).toEqual([['INITIAL_SESSION', data.user?.id]]);
    second.dispose();
  });
});

describe('auth bad input and failures', () => {
  it("unrelated clients with the same storage key do not adopt each other's sessions", async () => {
    const a = createAuthClient(server.url, server.anonKey, { storage: memoryStorage() });
    const b = createAuthClient(server.url, server.anonKey, { storage: memoryStorage() });
    expect(a.storageKey).toBe(b.storageKey);
    await a.signUp({ email: freshEmail(), password: PASSWORD });
    await a.refreshSession();
    await new Promise((r) => setTimeout(r, 50));
    expect((await b.getSession()).data.session).toBeNull();
    a.dispose();
    b.dispose();
  });

  it('an unserialisable body is an error result, not a rejection', async () => {
    const auth = createAuthClient(server.url, server.anonKey, { storage: memoryStorage() });
    const data: Record<string, unknown> = {};
    data.self = data;
    const r = await auth.signUp({ email: freshEmail(), password: PASSWORD, options: { data } });
    expect(r).toMatchObject({
      data: { user: null, session: null },
      error: { code: 'invalid_body', status: 0 },
    });
    auth.dispose();
  });

  it('a failing storage gives error results, never rejections', async () => {
    const broken = {
      getItem: async () => Promise.reject(new Error('storage unavailable')),
      setItem: async () => Promise.reject(new Error('quota exceeded')),
      removeItem: async () => Promise.reject(new Error('storage unavailable')),
    };
    const auth = createAuthClient(server.url, server.anonKey, { storage: broken });
    expect(await auth.getSession()).toEqual({ data: { session: null }, error: null });
    const r = await auth.signUp({ email: freshEmail(), password: PASSWORD });
    expect(r.data).toEqual({ user: null, session: null });
    expect(r.error?.message).toBe('quota exceeded');
    auth.dispose();
  });

  it('a network failure is an error result with status 0', async () => {
    const auth = createAuthClient('http://127.0.0.1:9', 'key', { storage: memoryStorage() });
    const r = await auth.signInWithPassword({ email: 'a@example.com', password: 'x' });
    expect(r.error).toMatchObject({
      name: 'AuthRetryableFetchError',
      status: 0,
      code: 'network_error',
    });
    auth.dispose();
  });

  it('exchangeCodeForSession without a stored verifier is a clear error', async () => {
    const auth = createAuthClient(server.url, server.anonKey, {
      storage: memoryStorage(),
      flowType: 'pkce',
    });
    const r = await auth.exchangeCodeForSession('some-code');
    expect(r.error?.code).toBe('pkce_verifier_missing');
    auth.dispose();
  });
});

describe('auth admin API', () => {
  it('sends what the official admin client sends', async () => {
    const ours = recordingFetch();
    const theirs = recordingFetch();
    const a = createAuthClient(server.url, server.serviceRoleKey, {
      fetch: ours.fetch,
      storage: memoryStorage(),
    });
    const b = officialClient(server.url, server.serviceRoleKey, { fetch: theirs.fetch }).auth;
    // biome-ignore lint/suspicious/noExplicitAny: both admin APIs driven the same way
    const run = async (admin: any, email: string) => {
      const created = await admin.createUser({ email, password: PASSWORD, email_confirm: true });
      const id = created.data.user.id;
      await admin.getUserById(id);
      await admin.updateUserById(id, { user_metadata: { a: 1 } });
      await admin.listUsers({ page: 1, perPage: 2 });
      await admin.generateLink({
        type: 'magiclink',
        email,
        options: { redirectTo: 'http://localhost/cb' },
      });
      await admin.deleteUser(id);
    };
    await run(a.admin, freshEmail('ours'));
    await run(b.admin, freshEmail('theirs'));
    const strip = (log: Recorded[]) =>
      (shape(log.map(wire)) as Any[]).map((r: Any) => ({
        ...r,
        path: r.path.replace(/[0-9a-f-]{36}/, 'ID'),
      }));
    expect(strip(ours.log)).toEqual(strip(theirs.log));
    a.dispose();
  });

  it('creates, reads, lists, updates and deletes users; generates links', async () => {
    const admin = createAuthClient(server.url, server.serviceRoleKey, {
      storage: memoryStorage(),
    }).admin;
    const email = freshEmail('admin');
    const created = await admin.createUser({
      email,
      password: PASSWORD,
      email_confirm: true,
      user_metadata: { a: 1 },
    });
    expect(created.error).toBeNull();
    const id = created.data.user?.id as string;
    expect((await admin.getUserById(id)).data.user?.email).toBe(email);
    const page = await admin.listUsers({ page: 1, perPage: 1 });
    expect(page.error).toBeNull();
    expect(page.data.users).toHaveLength(1);
    expect(page.data.total).toBeGreaterThanOrEqual(1);
    const updated = await admin.updateUserById(id, { user_metadata: { a: 2 } });
    expect(updated.data.user?.user_metadata).toMatchObject({ a: 2 });
    const link = await admin.generateLink({ type: 'magiclink', email });
    expect(link.error).toBeNull();
    expect(link.data.properties?.action_link).toMatch(/verify/);
    expect(link.data.user?.id).toBe(id);
    expect((await admin.deleteUser(id)).error).toBeNull();
    expect((await admin.getUserById(id)).error?.status).toBe(404);
  });

  it('is refused with the anon key', async () => {
    const admin = createAuthClient(server.url, server.anonKey, { storage: memoryStorage() }).admin;
    const { error } = await admin.listUsers();
    expect(error).toMatchObject({ status: 403, code: 'not_admin' });
  });
});
