/**
 * The new API keys (`sb_publishable_…`, `sb_secret_…`) and getClaims: what each client sends
 * with a publishable key signed out and signed in, for each capability, and a secret key on a
 * server.
 */
import type { Scenario } from '../scenario';

const publishable = { key: 'publishable', signedIn: false } as const;
const publishableSignedIn = { key: 'publishable', signedIn: true } as const;

export const keysScenarios: Scenario[] = [
  {
    id: 'keys.publishable.rest',
    client: publishable,
    run: (c) => c.from('books').select('title').order('id').limit(1),
  },
  {
    id: 'keys.publishable.rest-signed-in',
    client: publishableSignedIn,
    run: (c) => c.from('todos').select('title'),
  },
  {
    id: 'keys.publishable.functions',
    client: publishable,
    run: (c) => c.functions.invoke('echo', { body: { k: 1 } }),
  },
  {
    id: 'keys.publishable.storage',
    client: publishable,
    run: (c, ctx) => c.storage.from(`parity-${ctx.tag}`).list(),
  },
  {
    id: 'keys.publishable.auth-sign-in',
    client: publishable,
    run: (c, ctx) =>
      c.auth.signInWithPassword({ email: ctx.user.email, password: ctx.user.password }),
  },
  {
    id: 'keys.publishable.realtime',
    client: publishable,
    run: async (c, ctx) => {
      const channel = c.channel(ctx.u('pk'));
      const status = await new Promise((resolve) =>
        channel.subscribe(
          (s: string, e?: Error) => s !== 'CLOSED' && resolve(e ? `${s}: ${e.message}` : s),
        ),
      );
      await c.removeChannel(channel);
      return { status };
    },
  },
  {
    id: 'keys.secret.admin',
    client: { key: 'secret' },
    run: async (c, ctx) => c.auth.admin.getUserById(ctx.user.id),
  },
  {
    id: 'keys.secret.rest',
    client: { key: 'secret' },
    run: (c) => c.from('todos').select('title', { count: 'exact', head: true }),
  },
  { id: 'auth.get-claims', run: (c) => c.auth.getClaims() },
  { id: 'auth.get-claims-signed-out', client: { signedIn: false }, run: (c) => c.auth.getClaims() },
];
