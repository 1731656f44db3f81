/**
 * Starts one real backend-server (in-memory PGlite, a small `notes` table) for the whole run,
 * in Node rather than in the DOM environment of the tests; they reach it by URL.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateSigningKey, startServer } from '@app/backend-server';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    backend: { url: string; anonKey: string; oauthClientId: string };
  }
}

export default async function setup(project: TestProject) {
  const server = await startServer({
    port: 0,
    migrationsDir: join(dirname(fileURLToPath(import.meta.url)), 'migrations'),
    // User tokens signed ES256 with a kid, as on a hosted project with signing keys.
    signingKeys: [generateSigningKey('ES256')],
    auth: {
      rateLimits: false,
      // Passkeys for the passkey hooks' tests (a software authenticator plays the browser).
      passkey: { enabled: true },
      webauthn: { rpId: 'localhost', rpOrigins: ['http://localhost:5173'] },
      // OAuth through the emulated provider (a local page), identity linking on.
      emulateProviders: true,
      manualLinking: true,
      external: { github: {}, google: {} },
      // The OAuth 2.1 server, for the consent hook's tests. Its consent API takes browser
      // requests from allowed origins only: the tests' page is happy-dom's default origin.
      oauthServer: { enabled: true },
      redirectUrls: ['http://localhost:3000'],
    },
    log: false,
  });
  const res = await fetch(`${server.url}/auth/v1/admin/oauth/clients`, {
    method: 'POST',
    headers: {
      apikey: server.serviceRoleKey,
      authorization: `Bearer ${server.serviceRoleKey}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify({ client_name: 'Notes CLI', redirect_uris: ['http://localhost:4000/cb'] }),
  });
  const { client_id: oauthClientId } = (await res.json()) as { client_id: string };
  project.provide('backend', { url: server.url, anonKey: server.anonKey, oauthClientId });
  return async () => {
    await server.stop();
  };
}
