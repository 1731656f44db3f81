import {
  type MfaChallenge,
  useAuth,
  useBackendMutation,
  useBackendQuery,
  useMfaEnrollment,
  useQueryClient,
  useUser,
} from '@app/backend-react';
import { type FormEvent, useState } from 'react';
import { ErrorText } from '../components/ErrorText';
import { Field, Submit } from '../components/Form';
import { SignOutButton } from '../components/SignOutButton';
import type { AuthApi } from '../lib/client-types';
import { AuthCard } from './Auth';

/** A 6-digit code field: numeric keyboard, one-time-code autofill. */
function CodeField({ value, onChange }: { value: string; onChange: (v: string) => void }) {
  return (
    <Field
      label="6-digit code"
      name="code"
      value={value}
      inputMode="numeric"
      autoComplete="one-time-code"
      pattern="[0-9 ]*"
      maxLength={7}
      required
      onChange={onChange}
    />
  );
}

/**
 * The code step of a sign-in: the account has 2-step verification on and the session signed
 * in with the password only. Nothing of the account is shown until a code is accepted.
 */
export function CodeStep({ step }: { step: MfaChallenge }) {
  const [code, setCode] = useState('');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void step.verify(code.replace(/\s/g, '')).then((ok) => {
      if (!ok) setCode('');
    });
  };
  return (
    <AuthCard title="2-step verification">
      <p>Enter the 6-digit code from your authenticator app.</p>
      <form onSubmit={submit} noValidate>
        <CodeField value={code} onChange={setCode} />
        <Submit error={step.error} pending={step.status === 'verifying'} busy="Checking…" primary>
          Verify
        </Submit>
      </form>
      <p className="links">
        <SignOutButton className="link" scope="local">
          Sign in with a different account
        </SignOutButton>
      </p>
    </AuthCard>
  );
}

const FACTORS_KEY = (uid: string) => ['mfa-factors', uid] as const;

/** The "2-step verification" section of Settings: turn the authenticator app on or off. */
export function TwoStepSettings() {
  const auth = useAuth<AuthApi>();
  const uid = useUser()?.id ?? '';
  const queryClient = useQueryClient();
  const factors = useBackendQuery(FACTORS_KEY(uid), () => auth.mfa.listFactors(), {
    enabled: Boolean(uid),
  });
  const enrollment = useMfaEnrollment({ friendlyName: 'Authenticator app' });
  const [code, setCode] = useState('');
  const turnOff = useBackendMutation(
    async () => {
      for (const f of factors.data?.totp ?? []) {
        const { error } = await auth.mfa.unenroll({ factorId: f.id });
        if (error) return { data: null, error };
      }
      return { data: true, error: null };
    },
    {
      invalidates: [FACTORS_KEY(uid)],
      onSuccess: () => void enrollment.cancel(),
    },
  );
  const on = (factors.data?.totp.length ?? 0) > 0;

  if (factors.isPending) return <p role="status">Loading…</p>;
  if (on) {
    return (
      <>
        <p>
          <strong>On.</strong> When you sign in, Drive asks for a code from your authenticator app
          after your password.
        </p>
        <ErrorText error={turnOff.error} />
        <button type="button" onClick={() => turnOff.mutate()} disabled={turnOff.isPending}>
          Turn off 2-step verification
        </button>
      </>
    );
  }
  if (enrollment.status === 'idle' || enrollment.status === 'enrolling') {
    return (
      <>
        <p>
          <strong>Off.</strong> Protect your files with a code from an authenticator app (such as
          Google Authenticator, 1Password or Authy) each time you sign in.
        </p>
        <ErrorText error={enrollment.error ?? factors.error} />
        <button
          type="button"
          onClick={() => void enrollment.start()}
          disabled={enrollment.status === 'enrolling'}
        >
          {enrollment.status === 'enrolling' ? 'Preparing…' : 'Turn on 2-step verification'}
        </button>
      </>
    );
  }
  return (
    <form
      className="two-step-setup"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        void enrollment.verify(code.replace(/\s/g, '')).then((ok) => {
          setCode('');
          if (ok) void queryClient.invalidateQueries({ queryKey: FACTORS_KEY(uid) });
        });
      }}
    >
      <ol>
        <li>
          Scan this QR code with your authenticator app.
          {enrollment.qrCode ? (
            <img
              className="qr"
              src={enrollment.qrCode}
              alt="QR code to scan with your authenticator app"
            />
          ) : null}
          <span className="hint">
            Can’t scan it? Enter this key instead:{' '}
            <code data-testid="totp-secret">{enrollment.secret}</code>
          </span>
        </li>
        <li>Enter the 6-digit code the app shows.</li>
      </ol>
      <CodeField value={code} onChange={setCode} />
      <ErrorText error={enrollment.error} />
      <div className="row-buttons">
        <button type="submit" className="primary" disabled={enrollment.status === 'verifying'}>
          {enrollment.status === 'verifying' ? 'Checking…' : 'Turn on'}
        </button>
        <button type="button" onClick={() => void enrollment.cancel()}>
          Cancel
        </button>
      </div>
    </form>
  );
}
