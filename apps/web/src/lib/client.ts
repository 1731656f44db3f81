import { createClient } from '@app/backend-sdk';
import { withOAuthServer } from '@app/backend-sdk/oauth-server';
import { withPasskeys } from '@app/backend-sdk/webauthn';
import { watchingFetch } from '../offline/online';
import type { DriveClient } from './client-types';

/** The well-known anon key of a local backend (default secret). */
export const LOCAL_ANON_KEY =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZS1kZW1vIiwicm9sZSI6ImFub24iLCJleHAiOjE5ODM4MTI5OTZ9.CRXP1A7WOeoJeXxjNni43kdQwgnWNReilDMblYTn_I0';

/**
 * Where the backend is: `window.__DRIVE_BACKEND__` at run time (set before the app loads by
 * whatever serves the page: `pnpm start` does, for its `BACKEND_PORT`; the browser tests do,
 * to point a build at their server), else `VITE_BACKEND_URL` / `VITE_BACKEND_ANON_KEY` at build
 * time, else the local defaults.
 */
export function backendConfig(
  env: Record<string, string | undefined> = import.meta.env,
  runtime: { url?: string; anonKey?: string } | undefined = (
    globalThis as { __DRIVE_BACKEND__?: { url?: string; anonKey?: string } }
  ).__DRIVE_BACKEND__,
) {
  return {
    url: runtime?.url || env.VITE_BACKEND_URL || 'http://127.0.0.1:54321',
    anonKey: runtime?.anonKey || env.VITE_BACKEND_ANON_KEY || LOCAL_ANON_KEY,
  };
}

/**
 * The one SDK client of the app, with the passkey ceremonies (the browser's prompt) and the
 * OAuth server's consent calls (the consent page).
 */
export function createDriveClient(): DriveClient {
  const { url, anonKey } = backendConfig();
  const client = createClient(url, anonKey, { global: { fetch: watchingFetch(url) } });
  return withOAuthServer(withPasskeys(client)) as unknown as DriveClient;
}
