/**
 * Drive's backend with sign-in through a provider (GitHub, emulated by the server as in
 * `pnpm start`): the account's profile is named after the provider's profile, and the
 * account can read only its own profile.
 */
import { createClient } from '@app/backend-sdk';
import type { RunningServer } from '@app/backend-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDriveServer } from './support';

let server: RunningServer;

beforeAll(async () => {
  server = await startDriveServer({
    auth: {
      emulateProviders: true,
      manualLinking: true,
      external: { github: {} },
    },
  });
});
afterAll(() => server?.stop());

/** Signs in with the emulated GitHub as `name`; returns the tokens of the redirect. */
async function signInWithGithub(email: string, name: string) {
  const start = await fetch(`${server.url}/auth/v1/authorize?provider=github`, {
    headers: { apikey: server.anonKey },
    redirect: 'manual',
  });
  const page = new URL(start.headers.get('location') ?? '');
  const form = await fetch(new URL('emulator', page), {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      state: page.searchParams.get('state') ?? '',
      provider: 'github',
      email,
      name,
      email_verified: 'true',
    }),
  });
  const callback = await fetch(form.headers.get('location') ?? '', { redirect: 'manual' });
  const params = new URLSearchParams(new URL(callback.headers.get('location') ?? '').hash.slice(1));
  return {
    access_token: params.get('access_token') ?? '',
    refresh_token: params.get('refresh_token') ?? '',
  };
}

describe('accounts made through a provider', () => {
  it('get a profile named after the provider profile', async () => {
    const email = `gh-${Date.now()}@example.com`;
    const tokens = await signInWithGithub(email, 'Octo Cat');
    const client = createClient(server.url, server.anonKey, {
      auth: { persistSession: false, autoRefreshToken: false },
    } as never);
    const { error } = await client.auth.setSession(tokens);
    expect(error).toBeNull();
    const { data } = await client.from('profiles').select('display_name');
    expect(data).toEqual([{ display_name: 'Octo Cat' }]);
  });
});
