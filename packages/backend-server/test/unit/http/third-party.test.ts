import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_JWT_SECRET } from '../../../src/config/keys';
import { verifyAccessToken, verifyJwt } from '../../../src/http/jwt';
import { SigningKeys } from '../../../src/http/signing-keys';
import { ThirdPartyAuth, thirdPartyIssuers } from '../../../src/http/third-party';
import { startOpenIdIssuers, type TestIssuer } from '../../../src/testing/index';

const ISSUER = 'https://drive.clerk.accounts.dev';

describe('third-party issuers', () => {
  let op: Awaited<ReturnType<typeof startOpenIdIssuers>>;
  let clerk: TestIssuer;
  beforeAll(async () => {
    op = await startOpenIdIssuers([ISSUER]);
    clerk = op.issuers.get(ISSUER) as TestIssuer;
  });
  afterAll(() => op?.close());

  it('derives the issuers as the CLI does', () => {
    expect(
      thirdPartyIssuers({
        firebase: { projectId: 'p' },
        auth0: { tenant: 't' },
        awsCognito: { userPoolId: 'us-east-1_x', userPoolRegion: 'us-east-1' },
        clerk: { domain: 'clerk.example.com' },
        workos: { issuerUrl: 'https://auth.example.com/user_management/client_1/' },
      }),
    ).toEqual([
      'https://securetoken.google.com/p',
      'https://t.auth0.com',
      'https://cognito-idp.us-east-1.amazonaws.com/us-east-1_x',
      'https://clerk.example.com',
      'https://auth.example.com/user_management/client_1',
    ]);
    expect(thirdPartyIssuers({ auth0: { tenant: 't', tenantRegion: 'us' } })).toEqual([
      'https://t.us.auth0.com',
    ]);
    expect(() => thirdPartyIssuers({ clerk: { domain: 'example.com' } })).toThrow(/Clerk/);
    expect(() => thirdPartyIssuers({ firebase: { projectId: '' } })).toThrow(/projectId/);
  });

  it('fetches again after the TTL, and keeps the keys it has while the issuer is down', async () => {
    const keys = new SigningKeys(DEFAULT_JWT_SECRET);
    keys.thirdParty = new ThirdPartyAuth({
      clerk: { domain: 'drive.clerk.accounts.dev' },
      jwksTtlSeconds: 0,
      fetch: op.fetch,
    });
    const before = clerk.jwksFetches;
    let n = 0;
    // A new token each time (RS256 signatures are deterministic: same claims, same bytes).
    const sign = () => clerk.sign({ sub: `user_${++n}`, role: 'authenticated' });
    expect((await verifyAccessToken(await sign(), keys)).ok).toBe(true);
    expect((await verifyAccessToken(await sign(), keys)).ok).toBe(true);
    expect(clerk.jwksFetches - before).toBe(2);
    clerk.down = true;
    try {
      expect((await verifyAccessToken(await sign(), keys)).ok).toBe(true);
    } finally {
      clerk.down = false;
    }
    // The auth service's verifier knows only the project's keys, even for a token the
    // others verified a moment ago (the same signed bytes).
    const token = await sign();
    expect((await verifyAccessToken(token, keys)).ok).toBe(true);
    const result = verifyJwt(token, keys);
    expect(result).toMatchObject({ ok: false, reason: 'invalid' });
  });

  it('a token without kid, or with an HS256 header, is never looked up at the issuer', async () => {
    const keys = new SigningKeys(DEFAULT_JWT_SECRET);
    keys.thirdParty = new ThirdPartyAuth({
      clerk: { domain: 'drive.clerk.accounts.dev' },
      fetch: () => Promise.reject(new Error('must not fetch')),
    });
    const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    const body = b64({ iss: ISSUER, sub: 'x', role: 'authenticated' });
    for (const header of [{ alg: 'RS256' }, { alg: 'HS256', kid: 'k' }]) {
      const result = await verifyAccessToken(`${b64(header)}.${body}.c2ln`, keys);
      expect(result).toMatchObject({ ok: false, reason: 'invalid' });
    }
  });
});
