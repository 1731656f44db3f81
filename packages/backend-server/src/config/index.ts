/**
 * The server's settings layer: the options callers give (`options.ts`, with the auth groups'
 * own modules), a project folder's `config.toml` (`project-toml.ts`), and the one loader
 * (`resolve.ts`) that turns them into the `ServerConfig` every service reads
 * (`server-config.ts`). Nothing here imports a service.
 */
export type { HookName, HookOption, HookOptions } from './auth-hooks';
export type {
  ExternalOptions,
  ExternalProviderOptions,
  OidcProviderOptions,
} from './external-providers';
export type { OAuthServerOptions } from './oauth-server';
export type {
  AuthOptions,
  AuthRateLimits,
  BucketOptions,
  ConsoleOptions,
  FunctionsOptions,
  ImageTransformationOptions,
  RealtimeOptions,
  RestOptions,
  S3ProtocolOptions,
  S3StorageOptions,
  StartServerOptions,
  StorageOptions,
} from './options';
export { DEFAULT_RATE_LIMITS, resolveConfig } from './resolve';
export type { ServerConfig } from './server-config';
export type { MfaOptions, SmsOptions, TwilioOptions } from './sms-mfa';
export type { PasskeyOptions, WebAuthnOptions } from './webauthn';
