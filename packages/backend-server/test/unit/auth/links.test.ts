import { describe, expect, it } from 'vitest';
import type { AuthContext } from '../../../src/auth/context';
import { pkceParams, redirectTarget } from '../../../src/auth/links';

function ctx(siteUrl: string | null, redirectUrls: string[] = []): AuthContext {
  return {
    config: { url: 'http://127.0.0.1:54321', auth: { siteUrl, redirectUrls } },
  } as unknown as AuthContext;
}

describe('redirectTarget', () => {
  it('falls back to the site URL (or the server URL) when nothing or garbage is asked', () => {
    expect(redirectTarget(ctx('http://localhost:3000'), undefined)).toBe('http://localhost:3000');
    expect(redirectTarget(ctx(null), 'not a url')).toBe('http://127.0.0.1:54321');
  });

  it("allows the site's host name on any port or path", () => {
    const c = ctx('http://localhost:3000');
    expect(redirectTarget(c, 'http://localhost:5173/cb?x=1')).toBe('http://localhost:5173/cb?x=1');
    expect(redirectTarget(c, 'https://evil.example/cb')).toBe('http://localhost:3000');
  });

  it('allows URLs matching the allow-list globs (* within a segment, ** across)', () => {
    const c = ctx('http://localhost:3000', ['https://*.app.example/**', 'myapp://callback']);
    expect(redirectTarget(c, 'https://preview.app.example/auth/done')).toBe(
      'https://preview.app.example/auth/done',
    );
    expect(redirectTarget(c, 'myapp://callback')).toBe('myapp://callback');
    expect(redirectTarget(c, 'https://a.b.evil.example/app.example/')).toBe(
      'http://localhost:3000',
    );
  });
});

describe('pkceParams', () => {
  const challenge = 'a'.repeat(43);
  it('is null without PKCE, normalised with it', () => {
    expect(pkceParams({})).toBeNull();
    expect(pkceParams({ code_challenge: challenge, code_challenge_method: 'S256' })).toEqual({
      challenge,
      method: 's256',
    });
  });

  it('refuses half or unknown parameters with validation_failed', () => {
    for (const body of [
      { code_challenge: challenge },
      { code_challenge: challenge, code_challenge_method: 'md5' },
      { code_challenge: 'short', code_challenge_method: 'plain' },
    ]) {
      expect(() => pkceParams(body)).toThrow(
        expect.objectContaining({ code: 'validation_failed' }),
      );
    }
  });
});
