import { randomInt, randomUUID } from 'node:crypto';
import type { Context, Hono } from 'hono';
import type { AppEnv } from '../../service-module';
import type { AuthContext } from '../context';
import { type EarlierIdentity, emulatorErrorPage, emulatorPage } from '../oauth/emulator-page';
import { findOAuthFlow, type OAuthFlow } from '../oauth/flow';
import { encodeSorted } from '../oauth/http';
import type { EmulatedUser } from '../oauth/types';

const SECURITY_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; img-src http: https: data:",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};

const html = (c: Context<AppEnv>, body: string, status: 200 | 400 = 200) =>
  c.body(body, status, SECURITY_HEADERS);

/** A new provider user id in the provider's own format. */
function newSub(kind: string): string {
  const digits = (n: number) =>
    String(randomInt(1, 10)) + Array.from({ length: n - 1 }, () => randomInt(0, 10)).join('');
  if (kind === 'github' || kind === 'gitlab') return digits(8);
  if (kind === 'google') return digits(21);
  if (kind === 'discord') return digits(18);
  return randomUUID();
}

const text = (v: unknown) => (typeof v === 'string' ? v : '');

function fromIdentityData(sub: string, data: Record<string, unknown>): EmulatedUser {
  return {
    sub,
    email: text(data.email),
    emailVerified: data.email_verified === true,
    name: text(data.name) || text(data.full_name),
    avatarUrl: text(data.avatar_url) || text(data.picture),
  };
}

/**
 * The emulated provider (only with `emulateProviders`): GET /emulator shows the sign-in page of
 * a flow; POST /emulator takes the choice and goes on to the real callback with a code (or
 * with `error=access_denied` on Cancel), as the provider would.
 */
export function emulatorRoutes(routes: Hono<AppEnv>, ctx: AuthContext): void {
  if (!ctx.config.auth.external.emulate) return;

  /** The flow of the page, if it can still be continued. */
  async function usableFlow(state: string, provider: string): Promise<OAuthFlow | string> {
    const flow = await findOAuthFlow(ctx.db, state);
    if (!flow || flow.provider !== provider) return 'This sign-in is unknown.';
    if (flow.expired) return 'This sign-in took too long and has expired.';
    if (flow.pkce && flow.userId) return 'This sign-in has already been completed.';
    return flow;
  }

  async function earlier(provider: string): Promise<EarlierIdentity[]> {
    const { rows } = await ctx.db.query<{ sub: string; data: Record<string, unknown> }>(
      `select provider_id as sub, identity_data as data from auth.identities where provider = $1
       order by coalesce(last_sign_in_at, created_at) desc limit 20`,
      [provider],
    );
    return rows.map((r) => {
      const u = fromIdentityData(r.sub, r.data);
      return { sub: u.sub, email: u.email, name: u.name, avatarUrl: u.avatarUrl };
    });
  }

  const page = async (c: Context<AppEnv>, flow: OAuthFlow, error?: string) => {
    const cfg = ctx.config.auth.external.providers.get(flow.provider);
    const body = emulatorPage({
      provider: flow.provider,
      displayName: cfg?.displayName ?? flow.provider,
      state: flow.id,
      earlier: await earlier(flow.provider),
      ...(error ? { error } : {}),
    });
    return html(c, body, error ? 400 : 200);
  };

  routes.get('/emulator', async (c) => {
    const flow = await usableFlow(c.req.query('state') ?? '', c.req.query('provider') ?? '');
    if (typeof flow === 'string') return html(c, emulatorErrorPage(flow), 400);
    return page(c, flow);
  });

  routes.post('/emulator', async (c) => {
    const form = new URLSearchParams((await c.req.text()).slice(0, 64 * 1024));
    const flow = await usableFlow(form.get('state') ?? '', form.get('provider') ?? '');
    if (typeof flow === 'string') return html(c, emulatorErrorPage(flow), 400);
    const callback = `${ctx.config.url}/auth/v1/callback`;
    if (form.get('cancel')) {
      const params = {
        error: 'access_denied',
        error_description: 'The user denied the request',
        state: flow.id,
      };
      return c.redirect(`${callback}?${encodeSorted(params)}`, 303);
    }
    let user: EmulatedUser;
    const picked = form.get('identity');
    if (picked) {
      const { rows } = await ctx.db.query<{ data: Record<string, unknown> }>(
        'select identity_data as data from auth.identities where provider = $1 and provider_id = $2',
        [flow.provider, picked],
      );
      if (!rows[0]) return page(c, flow, 'That account is no longer there. Pick another one.');
      user = fromIdentityData(picked, rows[0].data);
    } else {
      const email = (form.get('email') ?? '').trim().toLowerCase();
      if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) {
        return page(c, flow, 'Type an email address, such as ada@example.com.');
      }
      const avatar = (form.get('avatar') ?? '').trim();
      if (avatar && !/^https?:\/\/\S+$/.test(avatar)) {
        return page(c, flow, 'The avatar must be an http(s) address, or left empty.');
      }
      const kind = ctx.config.auth.external.providers.get(flow.provider)?.kind ?? 'oidc';
      // The same email at the same provider is the same account.
      const { rows } = await ctx.db.query<{ sub: string }>(
        `select provider_id as sub from auth.identities where provider = $1 and email = $2
         order by created_at limit 1`,
        [flow.provider, email],
      );
      user = {
        sub: rows[0]?.sub ?? newSub(kind),
        email,
        emailVerified: form.get('email_verified') === 'true',
        name: (form.get('name') ?? '').trim().slice(0, 200),
        avatarUrl: avatar.slice(0, 2000),
      };
    }
    const code = await ctx.emulatorCodes.issue(flow.provider, user);
    return c.redirect(`${callback}?${encodeSorted({ code, state: flow.id })}`, 303);
  });
}
