/**
 * Settings of passkeys and WebAuthn (the hosted `[auth.passkey]` and `[auth.webauthn]`), with
 * their defaults. Part of the one config loader (`resolveConfig` in `resolve.ts` calls these).
 */

/** Passkey sign-in and registration under `/auth/v1/passkeys` (the hosted `[auth.passkey]`). */
export interface PasskeyOptions {
  /**
   * Passkeys on. Default false, as hosted: `/passkeys/*` answers 404 `passkey_disabled`.
   *
   * @example
   * startServer({ auth: { passkey: { enabled: true }, webauthn: { rpId: 'localhost', rpOrigins: ['http://localhost:5173'] } } });
   */
  enabled?: boolean;
  /**
   * Most passkeys one user may register; past it 422 `too_many_passkeys`. Default 10.
   *
   * @example
   * startServer({ auth: { passkey: { enabled: true, maxPasskeysPerUser: 3 } } });
   */
  maxPasskeysPerUser?: number;
}

/**
 * The WebAuthn relying party that passkeys and WebAuthn MFA factors belong to (the hosted
 * `[auth.webauthn]`). A credential only works on the RP id it was made for, and a ceremony
 * is only accepted from one of the origins.
 */
export interface WebAuthnOptions {
  /**
   * The RP id: the site's domain (no scheme, no port), e.g. `example.com` or `localhost`.
   * Default the host name of `auth.siteUrl` (else of the server's URL).
   *
   * @example
   * startServer({ auth: { webauthn: { rpId: 'drive.example.com' } } });
   */
  rpId?: string;
  /**
   * The name browsers show for the site while creating a passkey. Default the RP id.
   *
   * @example
   * startServer({ auth: { webauthn: { rpDisplayName: 'Drive' } } });
   */
  rpDisplayName?: string;
  /**
   * The origins (scheme, host and port) a ceremony may come from; another origin is refused
   * with 400 `webauthn_verification_failed`. Default the origin of `auth.siteUrl` (else of the
   * server's URL).
   *
   * @example
   * startServer({ auth: { webauthn: { rpOrigins: ['https://drive.example.com'] } } });
   */
  rpOrigins?: string[];
  /**
   * Seconds a passkey challenge can be answered; past it 400 `webauthn_challenge_expired`.
   * Default 300 (GoTrue's 5 minutes).
   *
   * @example
   * startServer({ auth: { webauthn: { challengeExpiry: 120 } } });
   */
  challengeExpiry?: number;
}

export interface ResolvedPasskey {
  enabled: boolean;
  maxPasskeysPerUser: number;
}

export interface ResolvedWebAuthn {
  /** Null: derived from the site URL (or the server URL) once the server listens. */
  rpId: string | null;
  rpDisplayName: string | null;
  rpOrigins: string[] | null;
  challengeExpiry: number;
}

export function resolvePasskey(o: PasskeyOptions = {}): ResolvedPasskey {
  const max = o.maxPasskeysPerUser ?? 10;
  if (!Number.isInteger(max) || max < 1) {
    throw new Error('auth.passkey.maxPasskeysPerUser must be a positive integer');
  }
  return { enabled: o.enabled ?? false, maxPasskeysPerUser: max };
}

export function resolveWebAuthn(o: WebAuthnOptions = {}): ResolvedWebAuthn {
  if (o.rpId !== undefined && !/^[a-z0-9.-]+$/i.test(o.rpId)) {
    throw new Error('auth.webauthn.rpId must be a domain name (no scheme, no port)');
  }
  for (const origin of o.rpOrigins ?? []) {
    let parsed: URL;
    try {
      parsed = new URL(origin);
    } catch {
      throw new Error(`auth.webauthn.rpOrigins: ${JSON.stringify(origin)} is not a URL`);
    }
    if (parsed.origin !== origin.replace(/\/$/, '')) {
      throw new Error(`auth.webauthn.rpOrigins: ${JSON.stringify(origin)} must be an origin`);
    }
  }
  const expiry = o.challengeExpiry ?? 300;
  if (!(expiry > 0)) throw new Error('auth.webauthn.challengeExpiry must be a positive number');
  return {
    rpId: o.rpId ?? null,
    rpDisplayName: o.rpDisplayName ?? null,
    rpOrigins: o.rpOrigins?.map((origin) => origin.replace(/\/$/, '')) ?? null,
    challengeExpiry: expiry,
  };
}
