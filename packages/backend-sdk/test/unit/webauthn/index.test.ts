import { describe, expect, it } from 'vitest';
import {
  base64UrlToBytes,
  bytesToBase64Url,
  credentialToJson,
  toCreationOptions,
  toRequestOptions,
} from '../../../src/webauthn/index';

const bytes = (...b: number[]) => new Uint8Array(b);

describe('WebAuthn helpers', () => {
  it('base64url round-trips every byte value, with or without padding', () => {
    const all = Uint8Array.from({ length: 256 }, (_, i) => i);
    const text = bytesToBase64Url(all);
    expect(text).not.toMatch(/[+/=]/);
    expect([...base64UrlToBytes(text)]).toEqual([...all]);
    expect([...base64UrlToBytes('AQI=')]).toEqual([1, 2]);
    expect([...base64UrlToBytes('AQI')]).toEqual([1, 2]);
    expect(bytesToBase64Url(bytes(251, 255).buffer)).toBe('-_8');
    expect(bytesToBase64Url(new DataView(bytes(9, 251, 255, 9).buffer, 1, 2))).toBe('-_8');
  });

  it('turns the server’s options into what navigator.credentials takes', () => {
    const creation = toCreationOptions({
      challenge: 'AQID',
      rp: { id: 'localhost', name: 'Drive' },
      user: { id: 'BAU', name: 'a@example.com', displayName: 'A' },
      pubKeyCredParams: [{ type: 'public-key', alg: -7 }],
      excludeCredentials: [{ id: 'Bg', type: 'public-key', transports: ['usb'] }],
      timeout: 300000,
    });
    expect([...(creation.challenge as Uint8Array)]).toEqual([1, 2, 3]);
    expect([...(creation.user.id as Uint8Array)]).toEqual([4, 5]);
    expect(creation.user.name).toBe('a@example.com');
    expect(creation.excludeCredentials?.map((d) => [...(d.id as Uint8Array)])).toEqual([[6]]);
    expect(creation.excludeCredentials?.[0]?.transports).toEqual(['usb']);
    expect(creation.timeout).toBe(300000);
    const request = toRequestOptions({ challenge: 'AQID', rpId: 'localhost' });
    expect([...(request.challenge as Uint8Array)]).toEqual([1, 2, 3]);
    expect(request.allowCredentials).toBeUndefined();
    expect(request.rpId).toBe('localhost');
  });

  it('turns a credential without toJSON into the JSON the server reads', () => {
    const assertion = {
      id: 'Bw',
      rawId: bytes(7).buffer,
      type: 'public-key',
      authenticatorAttachment: 'platform',
      response: {
        clientDataJSON: bytes(1).buffer,
        authenticatorData: bytes(2).buffer,
        signature: bytes(3).buffer,
        userHandle: null,
      },
      getClientExtensionResults: () => ({}),
    } as unknown as PublicKeyCredential;
    expect(credentialToJson(assertion)).toEqual({
      id: 'Bw',
      rawId: 'Bw',
      type: 'public-key',
      response: { clientDataJSON: 'AQ', authenticatorData: 'Ag', signature: 'Aw' },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    });
    const native = { toJSON: () => ({ id: 'x' }) } as unknown as PublicKeyCredential;
    expect(credentialToJson(native)).toEqual({ id: 'x' });
  });
});
