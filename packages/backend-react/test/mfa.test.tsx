import { act, cleanup, renderHook, waitFor } from '@testing-library/react';
import { Secret, TOTP } from 'otpauth';
import type { ReactNode } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import {
  BackendProvider,
  createQueryClient,
  useMfaChallenge,
  useMfaEnrollment,
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

const totp = (secret: string, at = Date.now()) =>
  new TOTP({
    secret: Secret.fromBase32(secret),
    algorithm: 'SHA1',
    digits: 6,
    period: 30,
  }).generate({ timestamp: at });
/** A code the secret does not accept now (not the step before, now or after). */
const wrong = (secret: string) => {
  const valid = new Set([-30_000, 0, 30_000].map((d) => totp(secret, Date.now() + d)));
  for (let n = 0; ; n++)
    if (!valid.has(String(n).padStart(6, '0'))) return String(n).padStart(6, '0');
};

describe('useMfaEnrollment', () => {
  it('enrolls, shows the QR code, refuses a wrong code and verifies the right one', async () => {
    const client = newClient();
    await signUpFresh(client);
    const { result } = renderHook(() => useMfaEnrollment({ friendlyName: 'App' }), {
      wrapper: wrapper(client),
    });
    expect(result.current.status).toBe('idle');
    await act(() => result.current.start());
    expect(result.current.status).toBe('enrolled');
    expect(result.current.qrCode?.startsWith('data:image/svg+xml;utf-8,<svg')).toBe(true);
    const secret = result.current.secret ?? '';
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);

    let ok = true;
    await act(async () => {
      ok = await result.current.verify(wrong(secret));
    });
    expect(ok).toBe(false);
    expect(result.current.status).toBe('enrolled');
    expect((result.current.error as { code?: string }).code).toBe('mfa_verification_failed');

    await act(async () => {
      ok = await result.current.verify(totp(secret));
    });
    expect(ok).toBe(true);
    expect(result.current.status).toBe('verified');
    const aal = await client.auth.mfa.getAuthenticatorAssuranceLevel();
    expect(aal.data?.currentLevel).toBe('aal2');
  });

  it('starting again replaces an unfinished enrolment; cancel removes it', async () => {
    const client = newClient();
    await signUpFresh(client);
    const { result } = renderHook(() => useMfaEnrollment({ friendlyName: 'App' }), {
      wrapper: wrapper(client),
    });
    await act(() => result.current.start());
    const first = result.current.factorId;
    await act(() => result.current.start());
    expect(result.current.status).toBe('enrolled');
    expect(result.current.factorId).not.toBe(first);
    expect((await client.auth.mfa.listFactors()).data?.all.map((f) => f.id)).toEqual([
      result.current.factorId,
    ]);
    await act(() => result.current.cancel());
    expect(result.current.status).toBe('idle');
    expect((await client.auth.mfa.listFactors()).data?.all).toEqual([]);
  });
});

describe('useMfaChallenge', () => {
  it('asks for a code after a password sign-in when a factor is verified, then is verified', async () => {
    const client = newClient();
    const email = await signUpFresh(client);
    const enrolled = await client.auth.mfa.enroll({ factorType: 'totp' });
    const secret = enrolled.data?.totp.secret ?? '';
    await client.auth.mfa.challengeAndVerify({
      factorId: enrolled.data?.id ?? '',
      code: totp(secret),
    });

    const other = newClient();
    const { result } = renderHook(() => useMfaChallenge(), { wrapper: wrapper(other) });
    await waitFor(() => expect(result.current.status).toBe('not-needed'));
    await act(async () => {
      await other.auth.signInWithPassword({ email, password: 'correct horse battery' });
    });
    await waitFor(() => expect(result.current.status).toBe('needed'));
    expect(result.current.factors.map((f) => f.id)).toEqual([enrolled.data?.id]);

    await act(async () => {
      await result.current.verify(wrong(secret));
    });
    expect(result.current.status).toBe('needed');
    expect((result.current.error as { code?: string }).code).toBe('mfa_verification_failed');
    await act(async () => {
      await result.current.verify(totp(secret));
    });
    await waitFor(() => expect(result.current.status).toBe('verified'));
    const aal = await other.auth.mfa.getAuthenticatorAssuranceLevel();
    expect(aal.data?.currentLevel).toBe('aal2');
  });

  it('needs no code for users without a verified factor', async () => {
    const client = newClient();
    await signUpFresh(client);
    const { result } = renderHook(() => useMfaChallenge(), { wrapper: wrapper(client) });
    await waitFor(() => expect(result.current.status).toBe('not-needed'));
  });
});
