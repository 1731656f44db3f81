import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type CryptoKey, exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';

/** One issuer served by {@link startOpenIdIssuers}: its signing key and the requests it got. */
export interface TestIssuer {
  /** The issuer URL its tokens carry (e.g. `https://securetoken.google.com/p`). */
  issuer: string;
  /** Signs a token as this issuer (RS256, its current key): `iss` (unless given), `iat`, `exp` (1 h). */
  sign(
    claims: Record<string, unknown>,
    options?: { expiresIn?: string; key?: 'foreign' },
  ): Promise<string>;
  /** A new key signs from now on and is the only one published. */
  rotate(): Promise<void>;
  /** Discovery and JWKS requests answer 503 while true. */
  down: boolean;
  /** How many times its JWKS was fetched. */
  jwksFetches: number;
}

interface Key {
  kid: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

async function newKey(): Promise<Key> {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const kid = crypto.randomUUID();
  return {
    kid,
    privateKey,
    jwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' },
  };
}

/**
 * A small real OpenID issuer server on a free port (discovery document and JWKS over HTTP,
 * RS256 keys from jose) that plays several issuers at once: each issuer's fixed URL (the
 * hosted integrations derive them, e.g. `https://securetoken.google.com/<project>`) is
 * reached through `fetch`, which sends it to this server.
 *
 * @example
 * const op = await startOpenIdIssuers(['https://securetoken.google.com/my-project']);
 * const server = await startServer({ auth: { thirdParty: {
 *   firebase: { projectId: 'my-project' }, fetch: op.fetch,
 * } } });
 * const token = await op.issuers.get('https://securetoken.google.com/my-project')
 *   ?.sign({ sub: 'u1', role: 'authenticated' });
 */
export async function startOpenIdIssuers(issuers: string[]): Promise<{
  issuers: Map<string, TestIssuer>;
  fetch: typeof fetch;
  close(): Promise<void>;
}> {
  const foreign = await newKey();
  const state = new Map<string, { t: TestIssuer; key: Key }>();
  const byIndex: string[] = [];
  for (const issuer of issuers) {
    const entry: { t: TestIssuer; key: Key } = {
      key: await newKey(),
      t: {
        issuer,
        down: false,
        jwksFetches: 0,
        sign: (claims, options = {}) => {
          const key = options.key === 'foreign' ? foreign : entry.key;
          return new SignJWT({ iss: issuer, ...claims })
            .setProtectedHeader({ alg: 'RS256', kid: entry.key.kid, typ: 'JWT' })
            .setIssuedAt()
            .setExpirationTime(options.expiresIn ?? '1h')
            .sign(key.privateKey);
        },
        rotate: async () => {
          entry.key = await newKey();
        },
      },
    };
    state.set(issuer, entry);
    byIndex.push(issuer);
  }
  const http: Server = createServer((req, res) => {
    const [, index = '', ...rest] = (req.url ?? '/').split('/');
    const issuer = byIndex[Number(index)];
    const entry = issuer ? state.get(issuer) : undefined;
    const path = `/${rest.join('/')}`;
    if (!entry || entry.t.down) {
      res.writeHead(entry ? 503 : 404).end();
      return;
    }
    const json = (value: unknown) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(value));
    };
    if (path === '/.well-known/openid-configuration') {
      return json({ issuer: entry.t.issuer, jwks_uri: `${entry.t.issuer}/.well-known/jwks.json` });
    }
    if (path === '/.well-known/jwks.json') {
      entry.t.jwksFetches += 1;
      return json({ keys: [entry.key.jwk] });
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const local = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const route: typeof fetch = (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    const index = byIndex.findIndex((i) => url.startsWith(`${i}/`));
    if (index < 0) return Promise.reject(new TypeError(`fetch failed: ${url} is not reachable`));
    return fetch(`${local}/${index}${url.slice((byIndex[index] as string).length)}`, init);
  };
  return {
    issuers: new Map([...state].map(([k, v]) => [k, v.t])),
    fetch: route,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
