/**
 * `@app/backend-server/testing` — helpers for tests and tools, kept out of the main entry:
 * a WebAuthn authenticator in software, for passkeys and WebAuthn factors without a browser,
 * and OpenID issuers on a local port, for third-party auth (`auth.thirdParty`).
 *
 * @example
 * import { SoftwareAuthenticator } from '@app/backend-server/testing';
 * const key = new SoftwareAuthenticator({ rpId: 'localhost', origin: 'http://localhost:5173' });
 */

export { startOpenIdIssuers, type TestIssuer } from './openid-issuers';
export {
  type AssertionJson,
  type RegistrationJson,
  SoftwareAuthenticator,
  type Tamper,
} from './software-authenticator';
