import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DEFAULT_JWT_SECRET, generateSigningKey } from '../../../src/config/keys';
import { verifyJwt } from '../../../src/http/jwt';
import { type SigningKeyJwk, SigningKeys } from '../../../src/http/signing-keys';

const b64 = (v: string | Buffer) => Buffer.from(v).toString('base64url');
const claims = () => ({ sub: 'u', role: 'authenticated', exp: Math.floor(Date.now() / 1000) + 60 });

/** An HS256 token with a kid, keyed with a shared secret given as base64url `k`. */
function octToken(kid: string, k: string): string {
  const input = `${b64(JSON.stringify({ alg: 'HS256', kid, typ: 'JWT' }))}.${b64(JSON.stringify(claims()))}`;
  return `${input}.${b64(createHmac('sha256', Buffer.from(k, 'base64url')).update(input).digest())}`;
}

describe('SigningKeys', () => {
  it("reads GoTrue's key lists as they are: key_ops sign = current, verify only = previous", () => {
    const rsa = generateSigningKey('RS256');
    const oct: SigningKeyJwk = {
      kty: 'oct',
      k: b64('a shared secret of enough length!'),
      kid: 'oct-1',
      key_ops: ['verify'],
      alg: 'HS256',
    };
    const keys = new SigningKeys(DEFAULT_JWT_SECRET, [oct, rsa]);
    expect(keys.list().map(({ kid, alg, status }) => [kid, alg, status])).toEqual([
      [null, 'HS256', 'previous'],
      ['oct-1', 'HS256', 'previous'],
      [rsa.kid, 'RS256', 'current'],
    ]);
    // Shared secrets are never published; the RSA public key is, without private members.
    expect(keys.jwks().keys).toEqual([
      {
        kty: 'RSA',
        n: rsa.n,
        e: rsa.e,
        kid: rsa.kid,
        alg: 'RS256',
        use: 'sig',
        key_ops: ['verify'],
      },
    ]);
    expect(verifyJwt(octToken('oct-1', oct.k as string), keys).ok).toBe(true);
    expect(verifyJwt(octToken('oct-1', b64('another secret')), keys)).toMatchObject({
      ok: false,
      reason: 'invalid',
    });
    // The header names the algorithm of the key: RS256 over the oct key's kid is refused.
    const signed = keys.sign(claims());
    expect(JSON.parse(Buffer.from(signed.split('.')[0] ?? '', 'base64url').toString())).toEqual({
      alg: 'RS256',
      kid: rsa.kid,
      typ: 'JWT',
    });
    expect(verifyJwt(signed, keys).ok).toBe(true);
  });

  it('refuses rotations the dashboard refuses', async () => {
    const a = generateSigningKey('ES256');
    const b = { ...generateSigningKey('ES256'), status: 'standby' as const };
    const c = { ...generateSigningKey('ES256'), status: 'standby' as const };
    const keys = new SigningKeys(DEFAULT_JWT_SECRET, [a, b, c]);
    await expect(keys.rotate()).rejects.toThrow(/several standby keys/);
    await expect(keys.rotate(a.kid)).rejects.toThrow(/is current, not standby/);
    await expect(keys.rotate('nope')).rejects.toThrow(/no signing key with kid nope/);
    await expect(keys.remove(a.kid)).rejects.toThrow(/revoke it before removing it/);
    const { d: _d, ...publicOnly } = generateSigningKey('ES256');
    await keys.add(publicOnly as SigningKeyJwk, 'previous');
    await keys.setStatus(publicOnly.kid, 'standby');
    await expect(keys.rotate(publicOnly.kid)).rejects.toThrow(/no private part/);
    await keys.remove(c.kid);
    expect(keys.find(c.kid)).toBeUndefined();
    await expect(keys.add(b)).rejects.toThrow(/duplicate kid/);
  });

  it('forgets verified tokens when a key changes status', async () => {
    const a = generateSigningKey('ES256');
    const keys = new SigningKeys(DEFAULT_JWT_SECRET, [a]);
    const token = keys.sign(claims());
    expect(verifyJwt(token, keys).ok).toBe(true);
    expect(keys.verified.has(token)).toBe(true);
    const b = generateSigningKey('ES256');
    await keys.add(b);
    await keys.rotate(b.kid);
    await keys.setStatus(a.kid, 'revoked');
    expect(keys.verified.size).toBe(0);
    expect(verifyJwt(token, keys)).toMatchObject({ ok: false, reason: 'invalid' });
  });
});
