import { act, cleanup, renderHook, waitFor } from '@testing-library/react';
import { type ReactNode, StrictMode } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { BackendProvider, createQueryClient, useClaims } from '../src/index';
import { newClient, signUpFresh, type TestClient } from './test-server';

afterEach(() => cleanup());

function wrapper(client: TestClient) {
  const queryClient = createQueryClient();
  return ({ children }: { children: ReactNode }) => (
    <StrictMode>
      <BackendProvider client={client} queryClient={queryClient}>
        {children}
      </BackendProvider>
    </StrictMode>
  );
}

describe('useClaims (StrictMode, real auth with an ES256 signing key)', () => {
  it('gives the verified claims of the session token, follows refresh and sign-out', async () => {
    const client = newClient();
    const { result } = renderHook(() => useClaims(), { wrapper: wrapper(client) });
    await waitFor(() => expect(result.current.loading).toBe(false));
    expect(result.current).toEqual({ loading: false, claims: null, error: null });

    const email = await act(() => signUpFresh(client));
    await waitFor(() => expect(result.current.claims?.email).toBe(email));
    expect(result.current.error).toBeNull();
    const { data } = await client.auth.getSession();
    expect(result.current.claims?.sub).toBe(data.session?.user.id);
    const first = result.current.claims?.session_id;

    // New metadata reaches the token at the next refresh, and the hook follows the new token.
    await act(async () => {
      await client.auth.updateUser({ data: { nickname: 'Ada' } });
    });
    expect(result.current.claims?.user_metadata).toEqual({});
    await act(async () => {
      await client.auth.refreshSession();
    });
    await waitFor(() => expect(result.current.claims?.user_metadata).toEqual({ nickname: 'Ada' }));
    expect(result.current.claims?.session_id).toBe(first);
    const token = (await client.auth.getSession()).data.session?.access_token ?? '';
    expect((await client.auth.getClaims(token)).data?.header.alg).toBe('ES256');

    await act(async () => {
      await client.auth.signOut();
    });
    await waitFor(() => expect(result.current.claims).toBeNull());
    expect(result.current.loading).toBe(false);
  });
});
