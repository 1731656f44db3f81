/**
 * Test support (not exported by the package): SDK clients of the real backend-server that
 * test/global-setup.ts starts, signed in as fresh users.
 */
import { type Client, createClient, type WebAuthnDriver } from '@app/backend-sdk';
import { withOAuthServer } from '@app/backend-sdk/oauth-server';
import { withPasskeys } from '@app/backend-sdk/webauthn';
import { inject } from 'vitest';

type WithPasskeys = ReturnType<typeof withPasskeys<Client>>;
export type TestClient = ReturnType<typeof withOAuthServer<WithPasskeys>>;

/**
 * A client with its own in-memory session, the passkey ceremonies (`withPasskeys`) with
 * `webauthn` as the browser's prompt, and the OAuth server's consent calls (`withOAuthServer`).
 */
export function newClient(options: { webauthn?: WebAuthnDriver } = {}): TestClient {
  const { url, anonKey } = inject('backend');
  const memory = new Map<string, string>();
  const client = createClient(url, anonKey, {
    auth: {
      storage: {
        getItem: (k: string) => memory.get(k) ?? null,
        setItem: (k: string, v: string) => void memory.set(k, v),
        removeItem: (k: string) => void memory.delete(k),
      },
      autoRefreshToken: false,
    },
  } as never);
  return withOAuthServer(
    withPasskeys(client, options.webauthn ? { driver: options.webauthn } : {}),
  );
}

let n = 0;
/** Signs a fresh user up on `client`; returns the email. */
export async function signUpFresh(client: TestClient): Promise<string> {
  n += 1;
  const email = `hooks-${Date.now()}-${n}@example.com`;
  const { error } = await client.auth.signUp({ email, password: 'correct horse battery' });
  if (error) throw error;
  return email;
}
