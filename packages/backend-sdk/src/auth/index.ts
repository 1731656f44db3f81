/**
 * `@app/backend-sdk/auth` — the auth capability (GoTrue protocol), importable alone.
 */

export { AuthError, isAuthError } from '../errors';
export type { Timers } from '../timers';
export {
  AdminApi,
  type AdminUserAttributes,
  type GenerateLinkParams,
  type GenerateLinkProperties,
  type UserPage,
} from './admin';
export type {
  ClaimsResult,
  GetClaimsOptions,
  JwtHeader,
  JwtPayload,
} from './claims';
export { AuthClient, createAuthClient } from './client';
export { JWKS_TTL, type Jwk } from './jwks';
export { type LockFn, type LockManagerLike, memoryLock, webLock } from './lock';
export {
  AdminMfaApi,
  type AmrEntry,
  type AssuranceLevel,
  type AuthenticatorAssuranceLevel,
  type Challenge,
  type EnrollParams,
  type Factor,
  type FactorLists,
  MfaApi,
  type MfaResult,
  type PhoneEnrollment,
  type TotpEnrollment,
  type WebAuthnAnswer,
  type WebAuthnEnrollment,
} from './mfa';
export type {
  OAuthOptions,
  Provider,
  SignInWithIdTokenCredentials,
  SignInWithOAuthCredentials,
  SignInWithSSO,
  SignInWithWeb3Credentials,
} from './oauth';
export type { Passkey, PasskeyOptions } from './passkeys';
export { createScheduler, refreshMargin, type Scheduler } from './refresh';
export { SessionManager } from './session';
export { memoryStorage } from './storage';
export type {
  AuthChangeEvent,
  AuthClientOptions,
  AuthListener,
  AuthOptions,
  AuthResult,
  OtpCredentials,
  OtpType,
  PasswordCredentials,
  Session,
  SessionStorage,
  SignUpCredentials,
  User,
  UserAndSession,
  UserAttributes,
  UserIdentity,
  VerifyOtpParams,
} from './types';
export type {
  CreationOptionsJson,
  CredentialJson,
  DescriptorJson,
  RequestOptionsJson,
  WebAuthnDriver,
} from './webauthn';
