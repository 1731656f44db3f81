import { describe, expect, it } from 'vitest';
import { authCodeUrl, encodeSorted } from '../../../../src/auth/oauth/http';
import { accessTokenHash } from '../../../../src/auth/oauth/oidc';
import { claimsRecord, withChosenEmail } from '../../../../src/auth/oauth/types';

describe('identity claims (GoTrue structs.Map of provider.Claims)', () => {
  it('keeps known claims, drops empty ones, always has email_verified and phone_verified', () => {
    expect(
      claimsRecord({
        iss: 'https://id.example',
        sub: '42',
        aud: 'client',
        name: '',
        nickname: null,
        picture: 'https://p.example/a.png',
        iat: 0,
        exp: 1700000000,
        custom_claims: {},
        something_else: 'dropped',
      }),
    ).toEqual({
      iss: 'https://id.example',
      sub: '42',
      aud: ['client'],
      picture: 'https://p.example/a.png',
      exp: 1700000000,
      email_verified: false,
      phone_verified: false,
    });
  });

  it('takes the primary email (else the last), lowercased, with its verification', () => {
    const claims = { sub: '1' };
    expect(
      withChosenEmail({
        claims,
        emails: [
          { email: 'Old@Example.com', verified: true, primary: false },
          { email: 'Main@Example.com', verified: false, primary: true },
          { email: 'after@example.com', verified: true, primary: false },
        ],
      }),
    ).toMatchObject({ email: 'main@example.com', email_verified: false });
    expect(
      withChosenEmail({
        claims,
        emails: [
          { email: 'a@example.com', verified: false, primary: false },
          { email: 'b@example.com', verified: true, primary: false },
        ],
      }),
    ).toMatchObject({ email: 'b@example.com', email_verified: true });
    expect(withChosenEmail({ claims, emails: [] })).toEqual({
      sub: '1',
      email_verified: false,
      phone_verified: false,
    });
  });
});

describe('OAuth URLs and hashes', () => {
  it('builds the authorize URL as golang.org/x/oauth2 does (sorted, scope space-separated)', () => {
    expect(
      authCodeUrl(
        'https://github.com/login/oauth/authorize',
        { clientId: 'id', redirectUri: 'http://x/cb', scopes: ['user:email', 'repo'], state: 's' },
        { prompt: 'consent' },
      ),
    ).toBe(
      'https://github.com/login/oauth/authorize?client_id=id&prompt=consent&redirect_uri=http%3A%2F%2Fx%2Fcb&response_type=code&scope=user%3Aemail+repo&state=s',
    );
    expect(
      authCodeUrl(
        'https://x/auth?tenant=a',
        { clientId: 'c', redirectUri: 'r', scopes: [], state: 's' },
        {},
      ),
    ).toBe('https://x/auth?tenant=a&client_id=c&redirect_uri=r&response_type=code&state=s');
    expect(encodeSorted({ b: '2', a: '1', sb: '' })).toBe('a=1&b=2&sb=');
  });

  it('computes at_hash as the OpenID Connect spec says (left half of the hash, base64url)', () => {
    // The example of OpenID Connect Core 1.0, A.3 (RS256).
    expect(accessTokenHash('jHkWEdUXMU1BwAsC4vtUsZwnNvTIxEl0z9K3vx5KF0Y', 'RS256')).toBe(
      '77QmUPtjPfzWtF2AnpK9RQ',
    );
  });
});
