/**
 * Auth scenarios: sign-up, password and OTP sign-in, PKCE, anonymous, session calls,
 * user updates, sign-out scopes, auth events, and the admin API.
 */
import { PASSWORD } from '../harness';
import type { Ctx, Scenario } from '../scenario';

const out = { signedIn: false } as const;

/** Follows an email link without a browser; the code (PKCE) or the tokens (implicit). */
async function followLink(link: string): Promise<URL> {
  const res = await fetch(link, { redirect: 'manual' });
  const location = res.headers.get('location');
  if (!location) throw new Error(`no redirect from ${link} (${res.status})`);
  return new URL(location);
}

/** A session of the side's user, made without the client (so not recorded). */
async function otherSession(ctx: Ctx): Promise<{ access_token: string; refresh_token: string }> {
  const res = await fetch(`${ctx.server.url}/auth/v1/token?grant_type=password`, {
    method: 'POST',
    headers: { apikey: ctx.server.anonKey, 'content-type': 'application/json' },
    body: JSON.stringify({ email: ctx.user.email, password: PASSWORD }),
  });
  if (!res.ok) throw new Error(`sign-in failed: ${res.status}`);
  return (await res.json()) as { access_token: string; refresh_token: string };
}

export const authScenarios: Scenario[] = [
  {
    id: 'auth.sign-up',
    client: out,
    run: (c, ctx) =>
      c.auth.signUp({
        email: ctx.email('signup'),
        password: PASSWORD,
        options: { data: { name: 'Ada' } },
      }),
  },
  {
    id: 'auth.sign-up-weak-password',
    client: out,
    run: (c, ctx) => c.auth.signUp({ email: ctx.email('weak'), password: 'abc' }),
  },
  {
    id: 'auth.sign-up-existing',
    client: out,
    run: (c, ctx) => c.auth.signUp({ email: ctx.user.email, password: PASSWORD }),
  },
  {
    id: 'auth.sign-in-password',
    client: out,
    run: (c, ctx) => c.auth.signInWithPassword({ email: ctx.user.email, password: PASSWORD }),
  },
  {
    id: 'auth.sign-in-wrong-password',
    client: out,
    run: (c, ctx) => c.auth.signInWithPassword({ email: ctx.user.email, password: 'wrong-one' }),
  },
  {
    id: 'auth.sign-in-otp',
    client: out,
    run: (c, ctx) =>
      c.auth.signInWithOtp({ email: ctx.user.email, options: { shouldCreateUser: false } }),
  },
  {
    id: 'auth.verify-otp',
    client: out,
    setup: async (c, ctx) => {
      await c.auth.signInWithOtp({ email: ctx.user.email, options: { shouldCreateUser: false } });
    },
    run: async (c, ctx) => {
      const { otp } = await ctx.mail(ctx.user.email);
      return c.auth.verifyOtp({ email: ctx.user.email, token: otp, type: 'email' });
    },
  },
  {
    id: 'auth.verify-otp-wrong',
    client: out,
    run: (c, ctx) => c.auth.verifyOtp({ email: ctx.user.email, token: '000000', type: 'email' }),
  },
  {
    id: 'auth.pkce-magic-link',
    client: { signedIn: false, flowType: 'pkce' },
    run: async (c, ctx) => {
      const sent = await c.auth.signInWithOtp({
        email: ctx.user.email,
        options: { emailRedirectTo: 'http://localhost:3000/callback' },
      });
      const { links } = await ctx.mail(ctx.user.email);
      const code = (await followLink(links[0] as string)).searchParams.get('code');
      const exchanged = await c.auth.exchangeCodeForSession(code);
      return { sent, exchanged };
    },
  },
  {
    id: 'auth.sign-in-anonymously',
    client: out,
    run: (c) => c.auth.signInAnonymously({ options: { data: { guest: true } } }),
  },
  {
    id: 'auth.resend',
    client: out,
    run: (c, ctx) => c.auth.resend({ type: 'signup', email: ctx.email('signup') }),
  },
  {
    id: 'auth.reset-password',
    client: out,
    run: (c, ctx) =>
      c.auth.resetPasswordForEmail(ctx.user.email, { redirectTo: 'http://localhost:3000/reset' }),
  },
  { id: 'auth.get-user', run: (c) => c.auth.getUser() },
  { id: 'auth.get-user-signed-out', client: out, run: (c) => c.auth.getUser() },
  { id: 'auth.get-session', run: (c) => c.auth.getSession() },
  {
    id: 'auth.update-user',
    run: (c) => c.auth.updateUser({ data: { theme: 'dark' } }),
  },
  { id: 'auth.refresh-session', run: (c) => c.auth.refreshSession() },
  {
    id: 'auth.set-session',
    client: out,
    run: async (c, ctx) => {
      const session = await otherSession(ctx);
      return c.auth.setSession({
        access_token: session.access_token,
        refresh_token: session.refresh_token,
      });
    },
  },
  { id: 'auth.sign-out-local', run: (c) => c.auth.signOut({ scope: 'local' }) },
  { id: 'auth.sign-out-others', run: (c) => c.auth.signOut({ scope: 'others' }) },
  { id: 'auth.sign-out-global', run: (c) => c.auth.signOut() },
  {
    id: 'auth.events',
    client: out,
    run: async (c, ctx) => {
      const events: string[] = [];
      const { data } = c.auth.onAuthStateChange((event: string) => {
        events.push(event);
      });
      await ctx.until(() => events.includes('INITIAL_SESSION'));
      await c.auth.signInWithPassword({ email: ctx.user.email, password: PASSWORD });
      await c.auth.updateUser({ data: { seen: true } });
      await c.auth.refreshSession();
      await c.auth.signOut({ scope: 'local' });
      await ctx.until(() => events.includes('SIGNED_OUT'));
      data.subscription.unsubscribe();
      return events;
    },
  },
  // admin (service role key)
  {
    id: 'auth.admin.create-user',
    client: { key: 'service' },
    run: (c, ctx) =>
      c.auth.admin.createUser({
        email: ctx.email('created'),
        password: PASSWORD,
        email_confirm: true,
        user_metadata: { role: 'tester' },
      }),
  },
  {
    id: 'auth.admin.list-users',
    client: { key: 'service' },
    run: async (c) => {
      const r = await c.auth.admin.listUsers({ page: 1, perPage: 1 });
      // Both sides' users are listed; compare the shape of the page, not who is on it.
      return {
        error: r.error,
        keys: Object.keys(r.data ?? {}).sort(),
        users: r.data?.users?.length,
        aud: r.data?.aud,
        hasTotal: typeof r.data?.total === 'number',
        nextPage: r.data?.nextPage,
        lastPage: typeof r.data?.lastPage,
      };
    },
  },
  {
    id: 'auth.admin.get-user',
    client: { key: 'service' },
    run: (c, ctx) => c.auth.admin.getUserById(ctx.user.id),
  },
  {
    id: 'auth.admin.update-user',
    client: { key: 'service' },
    run: (c, ctx) => c.auth.admin.updateUserById(ctx.user.id, { user_metadata: { level: 2 } }),
  },
  {
    id: 'auth.admin.delete-user',
    client: { key: 'service' },
    run: async (c, ctx) => {
      const { data } = await c.auth.admin.createUser({
        email: ctx.email('doomed'),
        email_confirm: true,
      });
      return c.auth.admin.deleteUser(data.user.id);
    },
  },
  {
    id: 'auth.admin.generate-link',
    client: { key: 'service' },
    run: (c, ctx) =>
      c.auth.admin.generateLink({
        type: 'magiclink',
        email: ctx.user.email,
        options: { redirectTo: 'http://localhost:3000/welcome' },
      }),
  },
  {
    id: 'auth.admin.invite',
    client: { key: 'service' },
    run: (c, ctx) => c.auth.admin.inviteUserByEmail(ctx.email('invited'), { data: { team: 'a' } }),
  },
];
