/**
 * OAuth / OpenID Connect scenarios against the server's emulated provider (`custom:parity`,
 * whose user ids are UUIDs, so both sides compare): sign-in URLs, the PKCE flow through the
 * provider page, ID tokens, linked identities, and the disabled SSO and Web3 entry points.
 */
import type { Any, Ctx, Scenario } from '../scenario';

const out = { signedIn: false } as const;
const APP = 'http://localhost:3000/callback';

/**
 * Goes through the provider's (emulated) sign-in page as a browser would, as `email`; returns
 * the app's URL the sign-in comes back to. Not recorded: it is the browser's part.
 */
async function throughProvider(start: string, ctx: Ctx, email: string): Promise<URL> {
  let url = new URL(start);
  if (url.pathname.endsWith('/authorize')) {
    const res = await fetch(url, { redirect: 'manual' });
    url = new URL(res.headers.get('location') ?? '');
  }
  const res = await fetch(new URL('emulator', url), {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      state: url.searchParams.get('state') ?? '',
      provider: url.searchParams.get('provider') ?? '',
      email,
      name: `Parity ${ctx.tag}`,
      email_verified: 'true',
    }),
  });
  const callback = await fetch(res.headers.get('location') ?? '', { redirect: 'manual' });
  return new URL(callback.headers.get('location') ?? '');
}

export const oauthScenarios: Scenario[] = [
  {
    id: 'auth.oauth.url',
    client: out,
    run: (c: Any) =>
      c.auth.signInWithOAuth({
        provider: 'github',
        options: {
          redirectTo: APP,
          scopes: 'repo gist',
          queryParams: { prompt: 'consent', access_type: 'offline' },
          skipBrowserRedirect: true,
        },
      }),
  },
  {
    id: 'auth.oauth.pkce-through-provider',
    client: { signedIn: false, flowType: 'pkce' },
    run: async (c: Any, ctx) => {
      const started = await c.auth.signInWithOAuth({
        provider: 'custom:parity',
        options: { redirectTo: APP, skipBrowserRedirect: true },
      });
      const back = await throughProvider(started.data.url, ctx, ctx.email('oauth-pkce'));
      const exchanged = await c.auth.exchangeCodeForSession(back.searchParams.get('code'));
      return { started, exchanged };
    },
  },
  {
    id: 'auth.oauth.id-token-refused',
    client: out,
    run: (c: Any) =>
      c.auth.signInWithIdToken({ provider: 'google', token: 'not-a-jwt', nonce: 'n' }),
  },
  {
    id: 'auth.oauth.id-token-unknown-provider',
    client: out,
    run: (c: Any) => c.auth.signInWithIdToken({ provider: 'custom:nope', token: 'a.b.c' }),
  },
  {
    id: 'auth.identities.list',
    run: (c: Any) => c.auth.getUserIdentities(),
  },
  {
    id: 'auth.identities.list-signed-out',
    client: out,
    run: (c: Any) => c.auth.getUserIdentities(),
  },
  {
    id: 'auth.identities.link-url',
    run: (c: Any) =>
      c.auth.linkIdentity({
        provider: 'custom:parity',
        options: { redirectTo: APP, skipBrowserRedirect: true },
      }),
  },
  {
    id: 'auth.identities.link-then-unlink',
    client: { flowType: 'pkce' },
    run: async (c: Any, ctx) => {
      const linked = await c.auth.linkIdentity({
        provider: 'custom:parity',
        options: { redirectTo: APP, skipBrowserRedirect: true },
      });
      const back = await throughProvider(linked.data.url, ctx, ctx.email('linked'));
      const exchanged = await c.auth.exchangeCodeForSession(back.searchParams.get('code'));
      const listed = await c.auth.getUserIdentities();
      const added = listed.data.identities.find((i: Any) => i.provider === 'custom:parity');
      const unlinked = await c.auth.unlinkIdentity(added);
      const after = await c.auth.getUserIdentities();
      const last = await c.auth.unlinkIdentity(after.data.identities[0]);
      return { linked, exchanged, listed, unlinked, after, last };
    },
  },
  {
    id: 'auth.identities.link-id-token-refused',
    run: (c: Any) => c.auth.linkIdentity({ provider: 'google', token: 'not-a-jwt' }),
  },
  {
    id: 'auth.sso.disabled',
    client: { signedIn: false, flowType: 'pkce' },
    run: (c: Any) => c.auth.signInWithSSO({ domain: 'example.com', options: { redirectTo: APP } }),
  },
  {
    id: 'auth.web3.disabled',
    client: out,
    run: (c: Any) =>
      c.auth.signInWithWeb3({
        chain: 'solana',
        message: 'parity message',
        signature: new Uint8Array([1, 2, 3]),
      }),
  },
];
