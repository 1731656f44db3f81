import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type ClientMetadata } from 'oidc-provider';

/** An account of the test OpenID provider: its claims (`sub` is the account id). */
export interface OpAccount {
  sub: string;
  email?: string;
  email_verified?: boolean;
  name?: string;
  picture?: string;
}

/** A real OpenID provider (panva's oidc-provider, OpenID Certified) on a free port. */
export interface TestOpenIdProvider {
  issuer: string;
  /** Registers the clients (once the redirect URIs are known) and starts answering. */
  configure(clients: ClientMetadata[]): Provider;
  accounts: Map<string, OpAccount>;
  /** The account the next login picks (the provider's login screen, answered). */
  signInAs(sub: string): void;
  /** Authorization requests the provider received (their query), newest last. */
  authorizeRequests: URLSearchParams[];
  close(): Promise<void>;
}

/**
 * Starts oidc-provider on a free port; it answers once `configure` gave it its clients. Its
 * login and consent steps are answered through its own interaction API
 * (`interactionFinished`): the login picks the account named by `signInAs`, the consent
 * grants what was asked.
 */
export async function startOpenIdProvider(): Promise<TestOpenIdProvider> {
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => {
    res.statusCode = 503;
    res.end();
  };
  const http: Server = createServer((req, res) => handler(req, res));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const accounts = new Map<string, OpAccount>();
  let next = '';
  const authorizeRequests: URLSearchParams[] = [];
  const configure = (clients: ClientMetadata[]) => {
    const provider = new Provider(issuer, {
      clients,
      claims: {
        openid: ['sub'],
        email: ['email', 'email_verified'],
        profile: ['name', 'picture'],
      },
      scopes: ['openid', 'email', 'profile'],
      // Claims of the granted scopes in the ID token too (as Google's have them).
      conformIdTokenClaims: false,
      features: { devInteractions: { enabled: false } },
      pkce: { required: () => false },
      interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
      async findAccount(_ctx, id) {
        const account = accounts.get(id);
        if (!account) return undefined;
        return { accountId: id, claims: async () => ({ ...account }) };
      },
    });
    const callback = provider.callback();
    handler = (req, res) => {
      const url = new URL(req.url ?? '/', issuer);
      if (url.pathname === '/auth') authorizeRequests.push(url.searchParams);
      if (!url.pathname.startsWith('/interaction/')) {
        callback(req, res);
        return;
      }
      void (async () => {
        const details = await provider.interactionDetails(req, res);
        if (details.prompt.name === 'login') {
          await provider.interactionFinished(req, res, { login: { accountId: next } });
          return;
        }
        const grant = new provider.Grant({
          accountId: details.session?.accountId ?? next,
          clientId: String(details.params.client_id),
        });
        grant.addOIDCScope(String(details.params.scope));
        const grantId = await grant.save();
        await provider.interactionFinished(req, res, { consent: { grantId } });
      })().catch((error: unknown) => {
        res.statusCode = 500;
        res.end(String(error));
      });
    };
    return provider;
  };
  return {
    issuer,
    configure,
    accounts,
    signInAs(sub) {
      next = sub;
    },
    authorizeRequests,
    close: () => new Promise<void>((resolve) => http.close(() => resolve())),
  };
}

/** A minimal cookie jar per host, for browser-like redirects through two servers. */
class Jar {
  private readonly cookies = new Map<string, Map<string, string>>();
  header(url: URL): string {
    const jar = this.cookies.get(url.host);
    return jar ? [...jar].map(([k, v]) => `${k}=${v}`).join('; ') : '';
  }
  take(url: URL, res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      if (eq < 0) continue;
      const jar = this.cookies.get(url.host) ?? new Map<string, string>();
      const value = pair.slice(eq + 1).trim();
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(line))
        jar.delete(pair.slice(0, eq).trim());
      else jar.set(pair.slice(0, eq).trim(), value);
      this.cookies.set(url.host, jar);
    }
  }
}

/**
 * Follows redirects like a browser (cookies kept) from `start` until one leads out of the
 * servers under test (to `stopHost`); returns that URL. Fails on a non-redirect answer.
 */
export async function followToApp(start: string, stopHost: string, limit = 20): Promise<URL> {
  const jar = new Jar();
  let url = new URL(start);
  for (let i = 0; i < limit; i++) {
    if (url.host === stopHost) return url;
    const res = await fetch(url, { redirect: 'manual', headers: { cookie: jar.header(url) } });
    jar.take(url, res);
    const location = res.headers.get('location');
    if (res.status < 300 || res.status >= 400 || !location) {
      throw new Error(`${url.href} answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
    }
    url = new URL(location, url);
  }
  throw new Error(`too many redirects from ${start}`);
}

/** The fragment (or query) parameters of a redirect. */
export const fragmentOf = (url: URL) => new URLSearchParams(url.hash.slice(1));

/** GoTrue's nonce check: the token carries the SHA-256 (hex) of the nonce the app keeps. */
export const hashedNonce = (nonce: string) => createHash('sha256').update(nonce).digest('hex');
