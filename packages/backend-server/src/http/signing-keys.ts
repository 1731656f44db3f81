import {
  createHmac,
  createPrivateKey,
  createPublicKey,
  type JsonWebKey,
  type KeyObject,
  sign,
} from 'node:crypto';
import type { ThirdPartyAuth } from './third-party';

/**
 * Where a signing key is in its life, as the hosted dashboard shows it: `standby` (published
 * in the JWKS, not used yet), `current` (signs new tokens), `previous` (no longer signs,
 * still verifies), `revoked` (neither published nor trusted).
 */
export type SigningKeyStatus = 'current' | 'standby' | 'previous' | 'revoked';

export type SigningAlgorithm = 'ES256' | 'RS256' | 'HS256';

/**
 * A signing key as a JWK, in the format of GoTrue's `GOTRUE_JWT_KEYS` and of
 * `backend-server gen signing-key`: EC P-256 (ES256), RSA (RS256) or a shared secret
 * (`kty: "oct"`, HS256). `status` is this server's addition; without it, a key whose
 * `key_ops` contains `sign` is the current key and any other key is a previous one.
 */
export interface SigningKeyJwk {
  kty: string;
  kid: string;
  alg?: string;
  use?: string;
  key_ops?: string[];
  status?: SigningKeyStatus;
  [member: string]: unknown;
}

/** What the server tells about one key (no private material). */
export interface SigningKeyInfo {
  /** `null` for the legacy JWT secret, which signs without a `kid`. */
  kid: string | null;
  alg: SigningAlgorithm;
  status: SigningKeyStatus;
  /** The public JWK as the JWKS publishes it (null for shared secrets). */
  publicJwk: Record<string, unknown> | null;
}

/** A key ready for use. */
export interface KeyEntry {
  kid: string | null;
  alg: SigningAlgorithm;
  status: SigningKeyStatus;
  /** Signs `header.payload` (absent when only the public part is known). */
  signer: ((data: string) => Buffer) | null;
  /** Public key (asymmetric) or secret bytes (HS256). */
  verifyKey: KeyObject | Buffer;
  publicJwk: Record<string, unknown> | null;
  /** The JWK it was made from, without `status` (null for the legacy secret). */
  source: SigningKeyJwk | null;
}

/**
 * One key as the key table keeps it: its JWK with the private part (null for the legacy
 * secret, whose `kid` is `''` there: the secret itself stays in the config) and its status.
 */
export interface StoredSigningKey {
  kid: string;
  jwk: SigningKeyJwk | null;
  status: SigningKeyStatus;
}

/** Where the key set is kept besides memory (the database); every change goes through it. */
export interface SigningKeyStore {
  /**
   * Applies `change` to a copy of the stored set (it throws to refuse), stores the result,
   * tells the other replicas and loads it into the server's keys.
   */
  change<T>(change: (keys: SigningKeys) => T): Promise<T>;
}

/** A key or a change the key set refuses (a client's mistake when it comes through the API). */
export class SigningKeyError extends Error {}

const PUBLIC_MEMBERS: Record<string, readonly string[]> = {
  EC: ['crv', 'x', 'y'],
  RSA: ['n', 'e'],
};

const base64url = (value: string | Buffer) => Buffer.from(value).toString('base64url');

function hmacSigner(secret: Buffer) {
  return (data: string) => createHmac('sha256', secret).update(data).digest();
}

function algorithmOf(jwk: SigningKeyJwk, where: string): SigningAlgorithm {
  const expected =
    jwk.kty === 'EC' ? 'ES256' : jwk.kty === 'RSA' ? 'RS256' : jwk.kty === 'oct' ? 'HS256' : null;
  if (!expected) throw new SigningKeyError(`${where}: unsupported key type ${String(jwk.kty)}`);
  if (jwk.alg !== undefined && jwk.alg !== expected) {
    throw new SigningKeyError(`${where}: alg ${String(jwk.alg)} does not fit a ${jwk.kty} key`);
  }
  if (jwk.kty === 'EC' && jwk.crv !== 'P-256') {
    throw new SigningKeyError(`${where}: only the P-256 curve (ES256) is supported`);
  }
  return expected;
}

const STATUSES: readonly SigningKeyStatus[] = ['current', 'standby', 'previous', 'revoked'];

/** Turns one configured JWK into a key entry; throws a message naming the key when unusable. */
export function importSigningKey(jwk: SigningKeyJwk, where = 'signing key'): KeyEntry {
  if (!jwk || typeof jwk !== 'object') throw new SigningKeyError(`${where}: not a JWK object`);
  if (typeof jwk.kid !== 'string' || jwk.kid === '')
    throw new SigningKeyError(`${where}: kid is required`);
  const label = `${where} ${jwk.kid}`;
  const alg = algorithmOf(jwk, label);
  const ops = Array.isArray(jwk.key_ops) ? jwk.key_ops : [];
  if (jwk.status !== undefined && !STATUSES.includes(jwk.status)) {
    throw new SigningKeyError(`${label}: status must be one of ${STATUSES.join(', ')}`);
  }
  const status: SigningKeyStatus = jwk.status ?? (ops.includes('sign') ? 'current' : 'previous');
  const { status: _status, ...source } = jwk;
  if (alg === 'HS256') {
    if (typeof jwk.k !== 'string' || jwk.k === '')
      throw new SigningKeyError(`${label}: k is required`);
    const secret = Buffer.from(jwk.k, 'base64url');
    return {
      kid: jwk.kid,
      alg,
      status,
      signer: hmacSigner(secret),
      verifyKey: secret,
      publicJwk: null,
      source,
    };
  }
  const members = PUBLIC_MEMBERS[jwk.kty] ?? [];
  const material: Record<string, unknown> = { kty: jwk.kty };
  for (const m of [...members, 'd', 'p', 'q', 'dp', 'dq', 'qi']) {
    if (jwk[m] !== undefined) material[m] = jwk[m];
  }
  let privateKey: KeyObject | null = null;
  let publicKey: KeyObject;
  try {
    if (typeof material.d === 'string') {
      privateKey = createPrivateKey({ key: material as JsonWebKey, format: 'jwk' });
      publicKey = createPublicKey(privateKey);
    } else {
      publicKey = createPublicKey({ key: material as JsonWebKey, format: 'jwk' });
    }
  } catch (error) {
    throw new SigningKeyError(`${label}: not a valid ${jwk.kty} key (${(error as Error).message})`);
  }
  if (alg === 'RS256' && (publicKey.asymmetricKeyDetails?.modulusLength ?? 0) < 2048) {
    throw new SigningKeyError(`${label}: RSA keys must have at least 2048 bits`);
  }
  const exported = publicKey.export({ format: 'jwk' }) as Record<string, unknown>;
  const publicJwk: Record<string, unknown> = { kty: jwk.kty };
  for (const m of members) publicJwk[m] = exported[m];
  Object.assign(publicJwk, { kid: jwk.kid, alg, use: 'sig', key_ops: ['verify'] });
  const key = privateKey;
  const signer = key
    ? alg === 'ES256'
      ? (data: string) => sign('sha256', Buffer.from(data), { key, dsaEncoding: 'ieee-p1363' })
      : (data: string) => sign('sha256', Buffer.from(data), key)
    : null;
  return { kid: jwk.kid, alg, status, signer, verifyKey: publicKey, publicJwk, source };
}

/**
 * The project's JWT signing keys: the legacy JWT secret (HS256, tokens without `kid`) and
 * the configured JWKs, each with its status. Exactly one key is current; when no JWK is,
 * the legacy secret is. Every service verifies with the same instance, so a rotation or a
 * revocation takes effect everywhere at once; with a {@link SigningKeyStore} attached (the
 * server's key table), changes are made there and reach every replica.
 */
export class SigningKeys {
  #entries = new Map<string, KeyEntry>();
  readonly #legacy: KeyEntry;
  readonly #jwtSecret: string;
  #store: SigningKeyStore | null = null;
  /** Tokens already verified (see `verifyJwt`); emptied whenever a key changes status. */
  readonly verified = new Map<
    string,
    { claims: Record<string, unknown>; until: number; thirdParty: boolean }
  >();
  /** The trusted third-party issuers (`auth.thirdParty`), or null when there are none. */
  thirdParty: ThirdPartyAuth | null = null;

  constructor(jwtSecret: string, jwks: readonly SigningKeyJwk[] = []) {
    this.#jwtSecret = jwtSecret;
    const secret = Buffer.from(jwtSecret);
    this.#legacy = {
      kid: null,
      alg: 'HS256',
      status: 'previous',
      signer: hmacSigner(secret),
      verifyKey: secret,
      publicJwk: null,
      source: null,
    };
    const entries = new Map<string, KeyEntry>();
    jwks.forEach((jwk, i) => {
      const entry = importSigningKey(jwk, `signingKeys[${i}]`);
      if (entries.has(entry.kid as string)) {
        throw new SigningKeyError(`signingKeys[${i}]: duplicate kid ${entry.kid}`);
      }
      entries.set(entry.kid as string, entry);
    });
    const current = [...entries.values()].filter((e) => e.status === 'current');
    if (current.length > 1) {
      throw new SigningKeyError('signingKeys: more than one current key (only one key may sign)');
    }
    if (current[0] && !current[0].signer) {
      throw new SigningKeyError(
        `signingKeys: the current key ${current[0].kid} has no private part`,
      );
    }
    if (current.length === 0) this.#legacy.status = 'current';
    this.#entries = entries;
  }

  /** Makes every later change go through `store` (the server attaches its key table). */
  attach(store: SigningKeyStore | null): void {
    this.#store = store;
  }

  /** The key that signs new tokens. */
  current(): KeyEntry {
    for (const entry of this.#entries.values()) if (entry.status === 'current') return entry;
    return this.#legacy;
  }

  /** The key a token names by `kid` (any status), or the legacy secret for `null`. */
  find(kid: string | null): KeyEntry | undefined {
    return kid === null ? this.#legacy : this.#entries.get(kid);
  }

  /** Signs claims with the current key: `{alg, kid, typ}` header, compact JWS. */
  sign(claims: Record<string, unknown>): string {
    const key = this.current();
    const header = key.kid
      ? { alg: key.alg, kid: key.kid, typ: 'JWT' }
      : { alg: key.alg, typ: 'JWT' };
    const input = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}`;
    return `${input}.${(key.signer as (data: string) => Buffer)(input).toString('base64url')}`;
  }

  /** The JWKS: public keys of every asymmetric key that is not revoked, current first. */
  jwks(): { keys: Record<string, unknown>[] } {
    const order: SigningKeyStatus[] = ['current', 'previous', 'standby'];
    const keys = [...this.#entries.values()]
      .filter((e) => e.publicJwk && e.status !== 'revoked')
      .sort((a, b) => order.indexOf(a.status) - order.indexOf(b.status))
      .map((e) => e.publicJwk as Record<string, unknown>);
    return { keys };
  }

  /** Every key with its status, the legacy secret first. */
  list(): SigningKeyInfo[] {
    return [this.#legacy, ...this.#entries.values()].map((e) => this.#info(e));
  }

  /** The whole set as the key table keeps it (private parts included: never send it out). */
  stored(): StoredSigningKey[] {
    return [
      { kid: '', jwk: null, status: this.#legacy.status },
      ...[...this.#entries.values()].map((e) => ({
        kid: e.kid as string,
        jwk: e.source,
        status: e.status,
      })),
    ];
  }

  /**
   * Replaces the set with `stored` (as read from the key table): exactly one key must be
   * current, and it must be able to sign. Verified tokens are forgotten.
   */
  load(stored: readonly StoredSigningKey[]): void {
    const entries = new Map<string, KeyEntry>();
    let legacy: SigningKeyStatus = this.#legacy.status;
    for (const row of stored) {
      if (row.kid === '') {
        legacy = row.status;
        continue;
      }
      if (!row.jwk) throw new SigningKeyError(`stored signing key ${row.kid} has no JWK`);
      entries.set(row.kid, importSigningKey({ ...row.jwk, status: row.status }, 'stored key'));
    }
    const current = [...entries.values()].filter((e) => e.status === 'current');
    const count = current.length + (legacy === 'current' ? 1 : 0);
    if (count !== 1)
      throw new SigningKeyError(`stored signing keys: ${count} current keys (one signs)`);
    if (current[0] && !current[0].signer) {
      throw new SigningKeyError(
        `stored signing keys: the current key ${current[0].kid} cannot sign`,
      );
    }
    this.#entries = entries;
    this.#legacy.status = legacy;
    this.#changed();
  }

  /** A detached copy (no store, no third-party issuers), to try a change on. */
  copy(): SigningKeys {
    const copy = new SigningKeys(this.#jwtSecret);
    copy.load(this.stored());
    return copy;
  }

  /**
   * Adds a key (private JWK, as `gen signing-key` prints it), in standby unless told
   * otherwise ('previous' to trust a key that never signs here).
   *
   * @example
   * await server.signingKeys.add(generateSigningKey('ES256'));
   * await server.signingKeys.rotate();
   */
  add(jwk: SigningKeyJwk, status: 'standby' | 'previous' = 'standby'): Promise<SigningKeyInfo> {
    return this.#change((keys) => keys.#add(jwk, status));
  }

  /**
   * Rotation as the dashboard does it: the standby key (the one named, or the only one)
   * becomes current and the current key becomes previous (its tokens stay valid).
   * `null` rotates back to the legacy secret when it is in standby.
   */
  rotate(kid?: string | null): Promise<SigningKeyInfo> {
    return this.#change((keys) => keys.#rotate(kid));
  }

  /**
   * Moves a key that is not current: `revoked` (tokens it signed are refused at once),
   * `standby` (from previous or revoked, to rotate back to it) or `previous`.
   */
  setStatus(
    kid: string | null,
    status: 'standby' | 'previous' | 'revoked',
  ): Promise<SigningKeyInfo> {
    return this.#change((keys) => keys.#setStatus(kid, status));
  }

  /** Forgets a revoked or standby key for good. */
  remove(kid: string): Promise<void> {
    return this.#change((keys) => keys.#remove(kid));
  }

  async #change<T>(change: (keys: SigningKeys) => T): Promise<T> {
    if (this.#store) return this.#store.change(change);
    const result = change(this);
    this.#changed();
    return result;
  }

  #add(jwk: SigningKeyJwk, status: 'standby' | 'previous'): SigningKeyInfo {
    const entry = importSigningKey({ ...jwk, status }, 'signing key');
    if (this.#entries.has(entry.kid as string))
      throw new SigningKeyError(`duplicate kid ${entry.kid}`);
    this.#entries.set(entry.kid as string, entry);
    return this.#info(entry);
  }

  #rotate(kid?: string | null): SigningKeyInfo {
    const standby =
      kid === undefined
        ? [this.#legacy, ...this.#entries.values()].filter((e) => e.status === 'standby')
        : [this.#need(kid)];
    const next = standby[0];
    if (!next || standby.length > 1) {
      throw new SigningKeyError(
        standby.length > 1 ? 'several standby keys: name the kid to rotate to' : 'no standby key',
      );
    }
    if (next.status !== 'standby')
      throw new SigningKeyError(`key ${next.kid} is ${next.status}, not standby`);
    if (!next.signer)
      throw new SigningKeyError(`key ${next.kid} has no private part: it cannot sign`);
    this.current().status = 'previous';
    next.status = 'current';
    return this.#info(next);
  }

  #setStatus(kid: string | null, status: 'standby' | 'previous' | 'revoked'): SigningKeyInfo {
    const entry = this.#need(kid);
    if (entry.status === 'current') {
      throw new SigningKeyError(
        'the current key cannot change status: rotate to another key first',
      );
    }
    entry.status = status;
    return this.#info(entry);
  }

  #remove(kid: string): void {
    const entry = this.#need(kid);
    if (entry.status !== 'revoked' && entry.status !== 'standby') {
      throw new SigningKeyError(`key ${kid} is ${entry.status}: revoke it before removing it`);
    }
    this.#entries.delete(kid);
  }

  #changed(): void {
    this.verified.clear();
  }

  #need(kid: string | null): KeyEntry {
    const entry = this.find(kid);
    if (!entry) throw new SigningKeyError(`no signing key with kid ${kid}`);
    return entry;
  }

  #info({ kid, alg, status, publicJwk }: KeyEntry): SigningKeyInfo {
    return { kid, alg, status, publicJwk };
  }
}
