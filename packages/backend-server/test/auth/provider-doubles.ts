import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';

/** A request a provider double received. */
export interface Seen {
  method: string;
  path: string;
  authorization: string | null;
  body: URLSearchParams;
  query: URLSearchParams;
}

/** What the next sign-in at a provider double answers. */
export interface Scenario {
  /** JSON answers by path (after the provider's base), e.g. `/api/v3/user`. */
  api: Record<string, unknown>;
  /** The token endpoint's answer (default: an access token). */
  token?: Record<string, unknown>;
  /** Claims of the ID token the token endpoint adds (Google). */
  idToken?: Record<string, unknown>;
}

/**
 * A small HTTP server that plays the documented endpoints of OAuth providers under a path per
 * provider (`/github`, `/gitlab`, `/discord`, `/google`): the authorize step approves at once
 * (back to `redirect_uri` with a code and the state), the token endpoint gives an access token
 * (and for Google a signed ID token with the nonce that was asked for), the APIs answer the
 * scenario's JSON to the right bearer token. Every request is recorded.
 */
export interface ProviderDoubles {
  url: string;
  seen: Seen[];
  /** Sets what the provider under `base` (e.g. `github`) answers next. */
  scenario(base: string, s: Scenario): void;
  /** An ID token of the Google double (as Google Sign-In gives an app). */
  googleIdToken(claims: Record<string, unknown>): Promise<string>;
  close(): Promise<void>;
}

const ACCESS_TOKEN = 'provider-access-token';

export async function startProviderDoubles(): Promise<ProviderDoubles> {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'double-key', alg: 'RS256', use: 'sig' };
  const scenarios = new Map<string, Scenario>();
  const nonces = new Map<string, string>();
  const seen: Seen[] = [];
  let url = '';

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const u = new URL(req.url ?? '/', url);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
    seen.push({
      method: req.method ?? 'GET',
      path: u.pathname,
      authorization: req.headers.authorization ?? null,
      body,
      query: u.searchParams,
    });
    const [, base = '', ...rest] = u.pathname.split('/');
    const path = `/${rest.join('/')}`;
    const s = scenarios.get(base);
    const json = (status: number, value: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(value));
    };
    if (base === 'google' && path === '/.well-known/openid-configuration') {
      const issuer = `${url}/google`;
      return json(200, {
        issuer,
        authorization_endpoint: `${issuer}/o/oauth2/v2/auth`,
        token_endpoint: `${issuer}/token`,
        userinfo_endpoint: `${issuer}/v1/userinfo`,
        jwks_uri: `${issuer}/oauth2/v3/certs`,
        id_token_signing_alg_values_supported: ['RS256'],
      });
    }
    if (base === 'google' && path === '/oauth2/v3/certs') return json(200, { keys: [jwk] });
    const authorize = [
      '/login/oauth/authorize',
      '/oauth/authorize',
      '/api/oauth2/authorize',
      '/o/oauth2/v2/auth',
    ];
    if (authorize.includes(path)) {
      const code = `code-${base}-${seen.length}`;
      const nonce = u.searchParams.get('nonce');
      if (nonce) nonces.set(code, nonce);
      const back = new URL(u.searchParams.get('redirect_uri') ?? '');
      back.searchParams.set('code', code);
      back.searchParams.set('state', u.searchParams.get('state') ?? '');
      res.writeHead(302, { location: back.href });
      return res.end();
    }
    const token = ['/login/oauth/access_token', '/oauth/token', '/api/oauth2/token', '/token'];
    if (token.includes(path) && req.method === 'POST') {
      if (!s) return json(500, { error: 'no scenario' });
      const answer: Record<string, unknown> = s.token ?? {
        access_token: ACCESS_TOKEN,
        token_type: 'bearer',
        refresh_token: `refresh-${base}`,
      };
      if (s.idToken) {
        const code = body.get('code') ?? '';
        answer.id_token = await new SignJWT({
          ...s.idToken,
          ...(nonces.has(code) ? { nonce: nonces.get(code) } : {}),
        })
          .setProtectedHeader({ alg: 'RS256', kid: 'double-key' })
          .setIssuer(`${url}/google`)
          .setIssuedAt()
          .setExpirationTime('10m')
          .sign(privateKey);
      }
      return json(200, answer);
    }
    if (s && path in s.api) {
      if (req.headers.authorization !== `Bearer ${ACCESS_TOKEN}`) {
        return json(401, { message: 'Bad credentials' });
      }
      return json(200, s.api[path]);
    }
    return json(404, { message: 'Not Found' });
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      res.statusCode = 500;
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    seen,
    scenario: (base, s) => void scenarios.set(base, s),
    googleIdToken: (claims) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', kid: 'double-key' })
        .setIssuer(`${url}/google`)
        .setIssuedAt()
        .setExpirationTime('10m')
        .sign(privateKey),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export { ACCESS_TOKEN };
