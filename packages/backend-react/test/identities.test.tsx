import { act, cleanup, renderHook, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { BackendProvider, createQueryClient, useAuthProviders, useIdentities } from '../src/index';
import { newClient, signUpFresh, type TestClient } from './test-server';

afterEach(() => cleanup());

const wrapper =
  (client: TestClient) =>
  ({ children }: { children: ReactNode }) => (
    <BackendProvider client={client} queryClient={createQueryClient()}>
      {children}
    </BackendProvider>
  );

/** Answers the emulated provider's page (the test server's) as `email`; returns the app URL. */
async function throughProvider(url: string, email: string): Promise<URL> {
  const page = new URL(url);
  const res = await fetch(new URL('emulator', page), {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      state: page.searchParams.get('state') ?? '',
      provider: page.searchParams.get('provider') ?? '',
      email,
      email_verified: 'true',
    }),
  });
  const callback = await fetch(res.headers.get('location') ?? '', { redirect: 'manual' });
  return new URL(callback.headers.get('location') ?? '');
}

describe('useAuthProviders', () => {
  it('lists the providers the project turned on, from its settings', async () => {
    const { result } = renderHook(() => useAuthProviders(), { wrapper: wrapper(newClient()) });
    await waitFor(() => expect(result.current.data).toBeDefined());
    expect(result.current.data).toEqual({
      external: ['github', 'google'],
      email: true,
      phone: false,
      anonymous: true,
      signupDisabled: false,
    });
  });
});

describe('useIdentities', () => {
  it('lists, links through the provider, and unlinks; the last one is refused', async () => {
    const client = newClient();
    await signUpFresh(client);
    const { result } = renderHook(() => useIdentities(), { wrapper: wrapper(client) });
    await waitFor(() =>
      expect(result.current.identities?.map((i) => i.provider)).toEqual(['email']),
    );

    let url: string | null = null;
    await act(async () => {
      url = await result.current.link('github', {
        redirectTo: `${inject('backend').url}/settings`,
        skipBrowserRedirect: true,
      });
    });
    expect(new URL(url ?? '').pathname).toBe('/auth/v1/emulator');
    const back = await throughProvider(url ?? '', `linked-${Date.now()}@example.com`);
    const params = new URLSearchParams(back.hash.slice(1));
    // The app's page after the redirect: the new session, with the identity added.
    await act(async () => {
      await client.auth.setSession({
        access_token: params.get('access_token') ?? '',
        refresh_token: params.get('refresh_token') ?? '',
      });
    });
    await waitFor(() =>
      expect(result.current.identities?.map((i) => i.provider)).toEqual(['email', 'github']),
    );

    const github = result.current.identities?.find((i) => i.provider === 'github');
    await act(async () => {
      await result.current.unlink.mutateAsync(github as never);
    });
    await waitFor(() =>
      expect(result.current.identities?.map((i) => i.provider)).toEqual(['email']),
    );
    const email = result.current.identities?.[0];
    await act(async () => {
      await result.current.unlink.mutateAsync(email as never).catch(() => {});
    });
    await waitFor(() =>
      expect((result.current.unlink.error as { code?: string } | null)?.code).toBe(
        'single_identity_not_deletable',
      ),
    );
  });

  it('has nothing to list when signed out', async () => {
    const { result } = renderHook(() => useIdentities(), { wrapper: wrapper(newClient()) });
    expect(result.current.identities).toBeUndefined();
    await expect(result.current.link('github')).rejects.toMatchObject({
      message: 'Auth session missing!',
    });
  });
});
