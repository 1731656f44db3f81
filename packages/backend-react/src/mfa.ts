import { useCallback, useEffect, useRef, useState } from 'react';
import { useSession } from './auth';
import { useBackendClient } from './provider';

/** A factor as `auth.mfa.listFactors()` returns it. */
export interface FactorLike {
  id: string;
  factor_type: string;
  status: string;
  friendly_name?: string | undefined;
  [key: string]: unknown;
}

interface MfaResultLike<T> {
  data: T | null;
  error: unknown;
}

/** The MFA capability (`client.auth.mfa`), as far as these hooks need it. */
export interface MfaLike {
  enroll(params: {
    factorType: 'totp';
    friendlyName?: string;
    issuer?: string;
  }): PromiseLike<
    MfaResultLike<{ id: string; totp: { qr_code: string; secret: string; uri: string } }>
  >;
  challengeAndVerify(params: {
    factorId: string;
    code: string;
  }): PromiseLike<MfaResultLike<unknown>>;
  unenroll(params: { factorId: string }): PromiseLike<MfaResultLike<unknown>>;
  listFactors(): PromiseLike<
    MfaResultLike<{ all: FactorLike[]; totp: FactorLike[]; phone: FactorLike[] }>
  >;
  getAuthenticatorAssuranceLevel(): PromiseLike<
    MfaResultLike<{ currentLevel: string | null; nextLevel: string | null }>
  >;
}

const useMfa = () => useBackendClient<{ auth: { mfa: MfaLike } }>().auth.mfa;

/** What {@link useMfaEnrollment} returns. */
export interface MfaEnrollment {
  /**
   * `idle` → `start()` → `enrolling` → `enrolled` (show `qrCode` / `secret`, ask for a code)
   * → `verify(code)` → `verifying` → `verified`; a wrong code goes back to `enrolled` with
   * `error`. `cancel()` removes the unfinished factor and goes back to `idle`.
   */
  status: 'idle' | 'enrolling' | 'enrolled' | 'verifying' | 'verified';
  /** The factor being enrolled (null while idle). */
  factorId: string | null;
  /** The QR code as a `data:image/svg+xml` URI, for an `<img src>`. */
  qrCode: string | null;
  /** The base32 secret, for typing into an authenticator app. */
  secret: string | null;
  /** The `otpauth://` URI. */
  uri: string | null;
  /** The last failure (a refused code, a network error), or null. */
  error: unknown;
  start(): Promise<void>;
  verify(code: string): Promise<boolean>;
  cancel(): Promise<void>;
}

const IDLE = {
  status: 'idle',
  factorId: null,
  qrCode: null,
  secret: null,
  uri: null,
  error: null,
} as const;
type EnrollmentState = Omit<MfaEnrollment, 'start' | 'verify' | 'cancel'>;

/**
 * The steps of turning on an authenticator app (TOTP) for the signed-in user: enrol (the
 * user's earlier unfinished TOTP enrolments are removed first, so a retry never hits the
 * name or count limits), show the QR code, verify the first code. After `verified` the
 * session is aal2.
 *
 * @example
 * const mfa = useMfaEnrollment({ friendlyName: 'Authenticator app' });
 * if (mfa.status === 'idle') return <button onClick={() => void mfa.start()}>Turn on</button>;
 * if (mfa.qrCode) return <img src={mfa.qrCode} alt="QR code" />;
 */
export function useMfaEnrollment(
  options: { friendlyName?: string; issuer?: string } = {},
): MfaEnrollment {
  const mfa = useMfa();
  const [state, setState] = useState<EnrollmentState>(IDLE);
  const current = useRef(state);
  current.current = state;
  const { friendlyName, issuer } = options;

  const start = useCallback(async () => {
    setState({ ...IDLE, status: 'enrolling' });
    const listed = await mfa.listFactors();
    for (const f of listed.data?.all ?? []) {
      if (f.factor_type === 'totp' && f.status !== 'verified')
        await mfa.unenroll({ factorId: f.id });
    }
    const { data, error } = await mfa.enroll({
      factorType: 'totp',
      ...(friendlyName !== undefined ? { friendlyName } : {}),
      ...(issuer !== undefined ? { issuer } : {}),
    });
    if (error || !data) {
      setState({ ...IDLE, error: error ?? new Error('enrolment failed') });
      return;
    }
    setState({
      status: 'enrolled',
      factorId: data.id,
      qrCode: data.totp.qr_code,
      secret: data.totp.secret,
      uri: data.totp.uri,
      error: null,
    });
  }, [mfa, friendlyName, issuer]);

  const verify = useCallback(
    async (code: string) => {
      const factorId = current.current.factorId;
      if (!factorId) return false;
      setState((s) => ({ ...s, status: 'verifying', error: null }));
      const { error } = await mfa.challengeAndVerify({ factorId, code: code.trim() });
      setState((s) => ({ ...s, status: error ? 'enrolled' : 'verified', error: error ?? null }));
      return !error;
    },
    [mfa],
  );

  const cancel = useCallback(async () => {
    const { factorId, status } = current.current;
    if (factorId && status !== 'verified') await mfa.unenroll({ factorId });
    setState(IDLE);
  }, [mfa]);

  return { ...state, start, verify, cancel };
}

/** What {@link useMfaChallenge} returns. */
export interface MfaChallenge {
  /**
   * `loading`, then `not-needed` (signed out, or no verified factor, or already aal2) or
   * `needed` (aal1 with a verified factor: ask for a code) → `verify(code)` → `verifying` →
   * `verified`. A wrong code goes back to `needed` with `error`.
   */
  status: 'loading' | 'not-needed' | 'needed' | 'verifying' | 'verified';
  /** The verified factors a code can be checked against (TOTP first). */
  factors: FactorLike[];
  error: unknown;
  /** Checks a code against `factorId` (default the first TOTP factor). */
  verify(code: string, factorId?: string): Promise<boolean>;
}

/**
 * The code step of a sign-in: whether the session must be raised to aal2, and a `verify`
 * that does it. It follows the session (a new sign-in is checked again).
 *
 * @example
 * const step = useMfaChallenge();
 * if (step.status === 'needed') return <CodeForm onSubmit={(code) => step.verify(code)} />;
 */
export function useMfaChallenge(): MfaChallenge {
  const mfa = useMfa();
  const { loading, session } = useSession();
  const token = session?.access_token ?? null;
  const [state, setState] = useState<Omit<MfaChallenge, 'verify'>>({
    status: 'loading',
    factors: [],
    error: null,
  });
  const factorsRef = useRef<FactorLike[]>([]);

  useEffect(() => {
    if (loading) return;
    if (!token) {
      setState({ status: 'not-needed', factors: [], error: null });
      return;
    }
    let live = true;
    void (async () => {
      const aal = await mfa.getAuthenticatorAssuranceLevel();
      if (!live) return;
      const level = aal.data;
      if (aal.error || !level || level.nextLevel !== 'aal2' || level.currentLevel === 'aal2') {
        setState((s) =>
          s.status === 'verified' ? s : { status: 'not-needed', factors: [], error: aal.error },
        );
        return;
      }
      const listed = await mfa.listFactors();
      if (!live) return;
      const factors = [...(listed.data?.totp ?? []), ...(listed.data?.phone ?? [])];
      factorsRef.current = factors;
      setState({ status: 'needed', factors, error: listed.error });
    })();
    return () => {
      live = false;
    };
  }, [mfa, loading, token]);

  const verify = useCallback(
    async (code: string, factorId?: string) => {
      const id = factorId ?? factorsRef.current.find((f) => f.factor_type === 'totp')?.id;
      if (!id) return false;
      setState((s) => ({ ...s, status: 'verifying', error: null }));
      const { error } = await mfa.challengeAndVerify({ factorId: id, code: code.trim() });
      setState((s) => ({ ...s, status: error ? 'needed' : 'verified', error: error ?? null }));
      return !error;
    },
    [mfa],
  );

  return { ...state, verify };
}
