/**
 * `@app/backend-server` — a Supabase-compatible backend in one Node process. Helpers for
 * tests (the software WebAuthn authenticator) are in `@app/backend-server/testing`.
 */
export type {
  AuthOptions,
  HookOption,
  HookOptions,
  PasskeyOptions,
  RestOptions,
  ServerConfig,
  StartServerOptions,
  WebAuthnOptions,
} from './config/index';
export {
  type ApiKeys,
  createApiKeys,
  DEFAULT_JWT_SECRET,
  DEFAULT_PUBLISHABLE_KEY,
  DEFAULT_SECRET_KEY,
  generateOpaqueKey,
  generateSigningKey,
} from './config/keys';
export type { Database } from './db/index';
export {
  type SigningKeyInfo,
  type SigningKeyJwk,
  type SigningKeyStatus,
  SigningKeys,
} from './http/signing-keys';
export { type RunningServer, startServer } from './server';
