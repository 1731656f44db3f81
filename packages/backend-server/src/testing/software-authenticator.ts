/**
 * A WebAuthn authenticator in software, for tests of passkeys and WebAuthn factors without a
 * browser: it answers the JSON options the server sends (`options` of
 * `/passkeys/registration/options`, `credential_options.publicKey` of a factor challenge) with
 * the JSON a browser would post back, signed with its own P-256 (ES256) or Ed25519 key.
 *
 * Every answer can be bent (another origin, RP id, challenge, counter, flags) to test that the
 * server refuses it.
 */
import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';

type Cbor = number | string | boolean | Uint8Array | Map<Cbor, Cbor> | { [key: string]: Cbor };

/** Canonical-enough CBOR for attestation objects and COSE keys (major types 0–5, 7). */
function cbor(value: Cbor): Buffer {
  const head = (major: number, n: number) => {
    const m = major << 5;
    if (n < 24) return Buffer.from([m | n]);
    if (n < 256) return Buffer.from([m | 24, n]);
    if (n < 65536) return Buffer.from([m | 25, n >> 8, n & 255]);
    const b = Buffer.alloc(5);
    b[0] = m | 26;
    b.writeUInt32BE(n, 1);
    return b;
  };
  if (typeof value === 'boolean') return Buffer.from([value ? 0xf5 : 0xf4]);
  if (typeof value === 'number') return value < 0 ? head(1, -1 - value) : head(0, value);
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'utf8');
    return Buffer.concat([head(3, bytes.length), bytes]);
  }
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), value]);
  const entries = value instanceof Map ? [...value] : Object.entries(value);
  return Buffer.concat([
    head(5, entries.length),
    ...entries.flatMap(([k, v]) => [cbor(k), cbor(v)]),
  ]);
}

const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();

/** Flags of authenticator data: user present, user verified, backup eligible / state, attested. */
const UP = 0x01;
const UV = 0x04;
const BE = 0x08;
const BS = 0x10;
const AT = 0x40;

/** What a test may change in one answer, to see the server refuse it. */
export interface Tamper {
  /** `origin` of the client data (default the authenticator's origin). */
  origin?: string;
  /** The RP id whose hash is in the authenticator data (default the authenticator's). */
  rpId?: string;
  /** The challenge answered (default the options' challenge). */
  challenge?: string;
  /** The client data's `type` (default `webauthn.create` / `webauthn.get`). */
  type?: string;
  /** The signature counter to report (default the next one). */
  counter?: number;
  /** User verified flag (default true). */
  userVerified?: boolean;
  /** User present flag (default true). */
  userPresent?: boolean;
  /** A user handle to report instead of the registered one (base64url); `''` for none. */
  userHandle?: string;
  /** Flip a byte of the signature. */
  badSignature?: boolean;
}

/** The JSON a browser posts after `navigator.credentials.create()`. */
export interface RegistrationJson {
  id: string;
  rawId: string;
  type: 'public-key';
  response: {
    clientDataJSON: string;
    attestationObject: string;
    transports: ('ble' | 'hybrid' | 'internal' | 'nfc' | 'usb')[];
  };
  clientExtensionResults: Record<string, unknown>;
  authenticatorAttachment: 'platform' | 'cross-platform';
}

/** The JSON a browser posts after `navigator.credentials.get()`. */
export interface AssertionJson {
  id: string;
  rawId: string;
  type: 'public-key';
  response: {
    clientDataJSON: string;
    authenticatorData: string;
    signature: string;
    userHandle?: string;
  };
  clientExtensionResults: Record<string, unknown>;
  authenticatorAttachment: 'platform' | 'cross-platform';
}

interface CreationOptions {
  challenge: string;
  rp: { id?: string; name?: string };
  user: { id: string; name?: string };
  pubKeyCredParams: { alg: number; type: string }[];
  excludeCredentials?: { id: string }[];
}

interface RequestOptions {
  challenge: string;
  rpId?: string;
  allowCredentials?: { id: string }[];
}

/**
 * One authenticator holding one credential, as a security key with a single passkey would.
 *
 * @example
 * const key = new SoftwareAuthenticator({ rpId: 'localhost', origin: 'http://localhost:5173' });
 * const { data } = await supabase.auth.passkey.startRegistration();
 * await supabase.auth.passkey.verifyRegistration({ challengeId: data.challenge_id, credential: key.create(data.options) });
 */
export class SoftwareAuthenticator {
  readonly rpId: string;
  readonly origin: string;
  /** The credential id, base64url. */
  readonly credentialId: string;
  /** The last signature counter reported (the next assertion reports one more). */
  counter = 0;
  /** The user handle the credential was created for (base64url), once created. */
  userHandle: string | null = null;
  readonly #key: KeyObject;
  readonly #cose: Buffer;
  readonly #alg: -7 | -8;
  readonly #aaguid: Buffer;
  readonly #backup: boolean;

  constructor(options: {
    rpId: string;
    origin: string;
    /** ES256 (default) or EdDSA (Ed25519). */
    algorithm?: 'ES256' | 'EdDSA';
    /** The model id reported at registration (default all zeros, as a privacy-minded key). */
    aaguid?: string;
    /** Report a synced (backed up) passkey. Default false. */
    backedUp?: boolean;
  }) {
    this.rpId = options.rpId;
    this.origin = options.origin;
    this.credentialId = b64url(randomBytes(20));
    this.#aaguid = Buffer.from((options.aaguid ?? '').replace(/-/g, '').padEnd(32, '0'), 'hex');
    this.#backup = options.backedUp ?? false;
    if (options.algorithm === 'EdDSA') {
      const { privateKey, publicKey } = generateKeyPairSync('ed25519');
      const x = Buffer.from(publicKey.export({ format: 'jwk' }).x ?? '', 'base64url');
      this.#key = privateKey;
      this.#alg = -8;
      this.#cose = cbor(
        new Map<Cbor, Cbor>([
          [1, 1],
          [3, -8],
          [-1, 6],
          [-2, x],
        ]),
      );
    } else {
      const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
      const jwk = publicKey.export({ format: 'jwk' });
      this.#key = privateKey;
      this.#alg = -7;
      this.#cose = cbor(
        new Map<Cbor, Cbor>([
          [1, 2],
          [3, -7],
          [-1, 1],
          [-2, Buffer.from(jwk.x ?? '', 'base64url')],
          [-3, Buffer.from(jwk.y ?? '', 'base64url')],
        ]),
      );
    }
  }

  #clientData(type: string, challenge: string, t: Tamper): Buffer {
    return Buffer.from(
      JSON.stringify({
        type: t.type ?? type,
        challenge: t.challenge ?? challenge,
        origin: t.origin ?? this.origin,
        crossOrigin: false,
      }),
    );
  }

  #flags(t: Tamper, extra = 0): number {
    let flags = extra;
    if (t.userPresent ?? true) flags |= UP;
    if (t.userVerified ?? true) flags |= UV;
    if (this.#backup) flags |= BE | BS;
    return flags;
  }

  #counterBytes(n: number): Buffer {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(n >>> 0);
    return b;
  }

  /** Answers creation options (what `navigator.credentials.create()` resolves to). */
  create(options: CreationOptions, tamper: Tamper = {}): RegistrationJson {
    if (!options.pubKeyCredParams.some((p) => p.alg === this.#alg)) {
      throw new Error(`the server does not offer algorithm ${this.#alg}`);
    }
    if (options.excludeCredentials?.some((c) => c.id === this.credentialId)) {
      throw new Error('InvalidStateError: this authenticator already holds a credential here');
    }
    this.userHandle = options.user.id;
    const idBytes = Buffer.from(this.credentialId, 'base64url');
    const length = Buffer.from([idBytes.length >> 8, idBytes.length & 255]);
    const authData = Buffer.concat([
      sha256(tamper.rpId ?? this.rpId),
      Buffer.from([this.#flags(tamper, AT)]),
      this.#counterBytes(tamper.counter ?? this.counter),
      this.#aaguid,
      length,
      idBytes,
      this.#cose,
    ]);
    const clientData = this.#clientData('webauthn.create', options.challenge, tamper);
    return {
      id: this.credentialId,
      rawId: this.credentialId,
      type: 'public-key',
      response: {
        clientDataJSON: b64url(clientData),
        attestationObject: b64url(cbor({ fmt: 'none', attStmt: {}, authData })),
        transports: ['internal'],
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  /** Answers request options (what `navigator.credentials.get()` resolves to). */
  get(options: RequestOptions, tamper: Tamper = {}): AssertionJson {
    if (this.userHandle === null) throw new Error('NotAllowedError: no credential created yet');
    const allowed = options.allowCredentials ?? [];
    if (allowed.length > 0 && !allowed.some((c) => c.id === this.credentialId)) {
      throw new Error('NotAllowedError: this authenticator holds none of the allowed credentials');
    }
    const counter = tamper.counter ?? this.counter + 1;
    this.counter = counter;
    const authData = Buffer.concat([
      sha256(tamper.rpId ?? this.rpId),
      Buffer.from([this.#flags(tamper)]),
      this.#counterBytes(counter),
    ]);
    const clientData = this.#clientData('webauthn.get', options.challenge, tamper);
    const signed = Buffer.concat([authData, sha256(clientData)]);
    const signature = sign(this.#alg === -8 ? null : 'sha256', signed, this.#key);
    if (tamper.badSignature) {
      const last = signature.length - 1;
      signature.writeUInt8(signature.readUInt8(last) ^ 0xff, last);
    }
    const handle = tamper.userHandle ?? this.userHandle;
    return {
      id: this.credentialId,
      rawId: this.credentialId,
      type: 'public-key',
      response: {
        clientDataJSON: b64url(clientData),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        ...(handle ? { userHandle: handle } : {}),
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }
}
