import type { WebAuthnDriver } from '@app/backend-sdk';
import { SoftwareAuthenticator } from '@app/backend-server/testing';
import { act, cleanup, renderHook, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import {
  BackendProvider,
  createQueryClient,
  usePasskeySignIn,
  usePasskeys,
  useUser,
} from '../src/index';
import { newClient, signUpFresh, type TestClient } from './test-server';

afterEach(() => cleanup());

const wrapper =
  (client: TestClient) =>
  ({ children }: { children: ReactNode }) => (
    <BackendProvider client={client} queryClient={createQueryClient()}>
      {children}
    </BackendProvider>
  );

/** The browser's part, played by a software authenticator. */
const driverOf = (key: SoftwareAuthenticator): WebAuthnDriver => ({
  create: async (options) => key.create(options as never) as never,
  get: async (options) => key.get(options as never) as never,
});
const newKey = () =>
  new SoftwareAuthenticator({ rpId: 'localhost', origin: 'http://localhost:5173' });

describe('usePasskeys', () => {
  it('lists, adds, renames and removes the signed-in user’s passkeys', async () => {
    const client = newClient({ webauthn: driverOf(newKey()) });
    await signUpFresh(client);
    const { result } = renderHook(() => usePasskeys(), { wrapper: wrapper(client) });
    await waitFor(() => expect(result.current.passkeys).toEqual([]));

    let ok = false;
    await act(async () => {
      ok = await result.current.add();
    });
    expect(ok).toBe(true);
    await waitFor(() => expect(result.current.passkeys).toHaveLength(1));
    const id = result.current.passkeys?.[0]?.id ?? '';
    expect(result.current.passkeys?.[0]?.friendly_name).toBe('Passkey');

    await act(async () => {
      ok = await result.current.rename(id, 'Laptop');
    });
    expect(ok).toBe(true);
    await waitFor(() => expect(result.current.passkeys?.[0]?.friendly_name).toBe('Laptop'));

    await act(async () => {
      ok = await result.current.rename(id, '');
    });
    expect(ok).toBe(false);
    expect((result.current.error as { code?: string }).code).toBe('validation_failed');

    await act(async () => {
      ok = await result.current.remove(id);
    });
    expect(ok).toBe(true);
    expect(result.current.error).toBeNull();
    await waitFor(() => expect(result.current.passkeys).toEqual([]));
    client.auth.dispose();
  });

  it('reports a cancelled prompt and adds nothing', async () => {
    const cancelled = new DOMException('The operation was cancelled', 'NotAllowedError');
    const client = newClient({
      webauthn: { create: () => Promise.reject(cancelled), get: () => Promise.reject(cancelled) },
    });
    await signUpFresh(client);
    const { result } = renderHook(() => usePasskeys(), { wrapper: wrapper(client) });
    await waitFor(() => expect(result.current.passkeys).toEqual([]));
    let ok = true;
    await act(async () => {
      ok = await result.current.add();
    });
    expect(ok).toBe(false);
    expect((result.current.error as { code?: string }).code).toBe('NotAllowedError');
    expect((await client.auth.passkey.list()).data).toEqual([]);
    client.auth.dispose();
  });
});

describe('usePasskeySignIn', () => {
  it('signs in with a registered passkey; the session hooks follow', async () => {
    const key = newKey();
    const owner = newClient({ webauthn: driverOf(key) });
    const email = await signUpFresh(owner);
    expect((await owner.auth.registerPasskey()).error).toBeNull();

    const visitor = newClient({ webauthn: driverOf(key) });
    const { result } = renderHook(() => ({ passkey: usePasskeySignIn(), user: useUser() }), {
      wrapper: wrapper(visitor),
    });
    await waitFor(() => expect(result.current.user).toBeNull());
    let ok = false;
    await act(async () => {
      ok = await result.current.passkey.signIn();
    });
    expect(ok).toBe(true);
    expect(result.current.passkey).toMatchObject({ pending: false, error: null });
    await waitFor(() => expect(result.current.user?.email).toBe(email));
    owner.auth.dispose();
    visitor.auth.dispose();
  });

  it('reports an unknown passkey', async () => {
    const stranger = newKey();
    stranger.userHandle = Buffer.from(crypto.randomUUID()).toString('base64url');
    const visitor = newClient({ webauthn: driverOf(stranger) });
    const { result } = renderHook(() => usePasskeySignIn(), { wrapper: wrapper(visitor) });
    let ok = true;
    await act(async () => {
      ok = await result.current.signIn();
    });
    expect(ok).toBe(false);
    expect((result.current.error as { code?: string }).code).toBe('webauthn_verification_failed');
    visitor.auth.dispose();
  });
});
