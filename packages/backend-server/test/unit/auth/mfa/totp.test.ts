import { describe, expect, it } from 'vitest';
import { newTotpKey, qrSvg, totpValid } from '../../../../src/auth/mfa/totp';

// RFC 6238 appendix B: the SHA1 seed "12345678901234567890" (base32 below), 8-digit codes
// 94287082 at T = 59 s and 07081804 at T = 1111111109 s; six digits are their last six.
const RFC_SECRET = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';

describe('TOTP', () => {
  it('accepts the RFC 6238 codes at their time and one step either side', () => {
    expect(totpValid(RFC_SECRET, '287082', 59_000)).toBe(true);
    expect(totpValid(RFC_SECRET, '081804', 1_111_111_109_000)).toBe(true);
    expect(totpValid(RFC_SECRET, '081804', 1_111_111_109_000 + 30_000)).toBe(true);
    expect(totpValid(RFC_SECRET, '081804', 1_111_111_109_000 - 30_000)).toBe(true);
  });

  it('refuses codes two steps away, other codes and malformed input', () => {
    expect(totpValid(RFC_SECRET, '081804', 1_111_111_109_000 + 60_000)).toBe(false);
    expect(totpValid(RFC_SECRET, '081805', 1_111_111_109_000)).toBe(false);
    expect(totpValid(RFC_SECRET, '81804', 1_111_111_109_000)).toBe(false);
    expect(totpValid(RFC_SECRET, '0818045', 1_111_111_109_000)).toBe(false);
    expect(totpValid(RFC_SECRET, 'abcdef', 1_111_111_109_000)).toBe(false);
  });

  it('makes a 160-bit secret and an otpauth URI naming issuer and account', async () => {
    const key = await newTotpKey('drive.example.com', 'ada@example.com');
    expect(key.secret).toMatch(/^[A-Z2-7]{32}$/);
    const uri = new URL(key.uri);
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.host).toBe('totp');
    expect(decodeURIComponent(uri.pathname)).toBe('/drive.example.com:ada@example.com');
    expect(Object.fromEntries(uri.searchParams)).toEqual({
      issuer: 'drive.example.com',
      secret: key.secret,
      algorithm: 'SHA1',
      digits: '6',
      period: '30',
    });
    expect(key.qrCode.startsWith('<svg ')).toBe(true);
  });

  it('draws QR codes as SVG without a "#" (they go into a data: URI unescaped)', async () => {
    const svg = await qrSvg('otpauth://totp/x?secret=ABC');
    expect(svg).toMatch(/^<svg width="\d+" height="\d+" xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    expect(svg).toMatch(/<\/svg>$/);
    expect(svg).not.toContain('#');
  });
});
