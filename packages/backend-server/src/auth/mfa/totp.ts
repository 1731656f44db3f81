import { Secret, TOTP } from 'otpauth';
import QRCode from 'qrcode';

/** Authenticator-app codes as the hosted service issues them: SHA1, 6 digits, 30 s steps. */
const PARAMS = { algorithm: 'SHA1', digits: 6, period: 30 } as const;

/** A new TOTP key: its base32 secret, the `otpauth://` URI and that URI as a QR code (SVG). */
export async function newTotpKey(
  issuer: string,
  account: string,
): Promise<{ secret: string; uri: string; qrCode: string }> {
  const secret = new Secret({ size: 20 });
  const uri = new TOTP({ issuer, label: account, secret, ...PARAMS }).toString();
  return { secret: secret.base32, uri, qrCode: await qrSvg(uri) };
}

/**
 * The QR code of a text as SVG markup. Clients put it after `data:image/svg+xml;utf-8,`
 * unescaped, so the markup uses colour names: a `#` would end such a URI.
 */
export async function qrSvg(text: string): Promise<string> {
  const svg = await QRCode.toString(text, { type: 'svg', errorCorrectionLevel: 'H', margin: 2 });
  const size = QRCode.create(text, { errorCorrectionLevel: 'H' }).modules.size + 4;
  return svg
    .replace('<svg ', `<svg width="${size * 3}" height="${size * 3}" `)
    .replaceAll('"#ffffff"', '"white"')
    .replaceAll('"#000000"', '"black"')
    .trim();
}

/** True when `code` is the current code of `secret`, or the one before or after it. */
export function totpValid(secret: string, code: string, now = Date.now()): boolean {
  if (!/^\d{6}$/.test(code)) return false;
  const totp = new TOTP({ secret: Secret.fromBase32(secret), ...PARAMS });
  return totp.validate({ token: code, timestamp: now, window: 1 }) !== null;
}
