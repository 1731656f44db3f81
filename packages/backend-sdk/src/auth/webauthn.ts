/**
 * The JSON of WebAuthn ceremonies as the auth server sends and reads it (binary fields in
 * base64url), and the driver interface that runs them. Types only: the runtime (drivers,
 * conversions, whole ceremonies) is in `@app/backend-sdk/webauthn`.
 */

type Json = Record<string, unknown>;

/** A credential descriptor as the server sends it (id in base64url). */
export interface DescriptorJson {
  id: string;
  type?: 'public-key';
  transports?: string[];
}

/** Options of `navigator.credentials.create()` as the server sends them (base64url strings). */
export interface CreationOptionsJson extends Json {
  challenge: string;
  rp: { id?: string; name: string };
  user: { id: string; name: string; displayName: string };
  pubKeyCredParams: { type: 'public-key'; alg: number }[];
  excludeCredentials?: DescriptorJson[];
}

/** Options of `navigator.credentials.get()` as the server sends them (base64url strings). */
export interface RequestOptionsJson extends Json {
  challenge: string;
  rpId?: string;
  allowCredentials?: DescriptorJson[];
}

/** A credential as the server reads it (`PublicKeyCredential.toJSON()`). */
export interface CredentialJson extends Json {
  id: string;
  rawId: string;
  type: 'public-key' | (string & {});
  response: Json;
}

/**
 * Runs WebAuthn ceremonies: JSON options in, JSON credential out; a refusal or cancel rejects.
 * `nativeWebAuthn` (the browser's) and `compatWebAuthn` are in `@app/backend-sdk/webauthn`;
 * tests pass one backed by a software authenticator.
 *
 * @example
 * const key = new SoftwareAuthenticator({ rpId: 'localhost', origin: 'http://localhost:5173' });
 * const driver: WebAuthnDriver = { create: async (o) => key.create(o), get: async (o) => key.get(o) };
 */
export interface WebAuthnDriver {
  create(options: CreationOptionsJson, signal?: AbortSignal): Promise<CredentialJson>;
  get(options: RequestOptionsJson, signal?: AbortSignal): Promise<CredentialJson>;
}
