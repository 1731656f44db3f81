import { act, cleanup, renderHook, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { BackendProvider, createQueryClient, useOAuthConsent } from '../src/index';
import { newClient, signUpFresh, type TestClient } from './test-server';

afterEach(() => cleanup());

const wrapper =
  (client: TestClient) =>
  ({ children }: { children: ReactNode }) => (
    <BackendProvider client={client} queryClient={createQueryClient()}>
      {children}
    </BackendProvider>
  );

/** What another app starts: `/oauth/authorize` → the consent page's authorization_id. */
async function authorizationId(): Promise<string> {
  const { url, oauthClientId } = inject('backend');
  const query = new URLSearchParams({
    client_id: oauthClientId,
    redirect_uri: 'http://localhost:4000/cb',
    response_type: 'code',
    state: 'st',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
  });
  const res = await fetch(`${url}/auth/v1/oauth/authorize?${query}`, { redirect: 'manual' });
  return new URL(res.headers.get('location') ?? '').searchParams.get('authorization_id') ?? '';
}

describe('useOAuthConsent', () => {
  it('loads the request, approves it; the same scopes later come back approved at once', async () => {
    const client = newClient();
    await signUpFresh(client);
    const id = await authorizationId();
    const { result } = renderHook(() => useOAuthConsent(id, { skipBrowserRedirect: true }), {
      wrapper: wrapper(client),
    });
    await waitFor(() => expect(result.current.details).toBeDefined());
    expect(result.current.details).toMatchObject({
      authorization_id: id,
      client: { name: 'Notes CLI' },
      scope: 'email',
    });
    expect(result.current.redirectUrl).toBeNull();
    let url: string | null = null;
    await act(async () => {
      url = await result.current.approve();
    });
    expect(new URL(url ?? '').searchParams.get('state')).toBe('st');
    expect(result.current.redirectUrl).toBe(url);

    const next = await authorizationId();
    const again = renderHook(() => useOAuthConsent(next, { skipBrowserRedirect: true }), {
      wrapper: wrapper(client),
    });
    await waitFor(() => expect(again.result.current.redirectUrl).toContain('code='));
    expect(again.result.current.details).toBeUndefined();
    client.auth.dispose();
  });

  it('deny gives access_denied; an unknown request is an error', async () => {
    const client = newClient();
    await signUpFresh(client);
    const id = await authorizationId();
    const { result } = renderHook(() => useOAuthConsent(id, { skipBrowserRedirect: true }), {
      wrapper: wrapper(client),
    });
    await waitFor(() => expect(result.current.details).toBeDefined());
    await act(async () => {
      await result.current.deny();
    });
    expect(new URL(result.current.redirectUrl ?? '').searchParams.get('error')).toBe(
      'access_denied',
    );
    const unknown = renderHook(() => useOAuthConsent('nope'), { wrapper: wrapper(client) });
    await waitFor(() =>
      expect((unknown.result.current.error as { code?: string }).code).toBe(
        'oauth_authorization_not_found',
      ),
    );
    client.auth.dispose();
  });
});
