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
import { t } from '../i18n';
import type { AuthApi } from '../lib/client-types';
import { AuthCard } from './Auth';

/** A 6-digit code field: numeric keyboard, one-time-code autofill. */
function CodeField({ value, onChange }: { value: string; onChange: (v: string) => void }) {
  return (
    <Field
      label={t('twoStep.codeLabel')}
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
    <AuthCard title={t('settings.twoStep')}>
      <p>{t('twoStep.enterCode')}</p>
      <form onSubmit={submit} noValidate>
        <CodeField value={code} onChange={setCode} />
        <Submit
          error={step.error}
          pending={step.status === 'verifying'}
          busy={t('twoStep.checking')}
          primary
        >
          {t('twoStep.verify')}
        </Submit>
      </form>
      <p className="links">
        <SignOutButton className="link" scope="local">
          {t('twoStep.otherAccount')}
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
  const enrollment = useMfaEnrollment({ friendlyName: t('twoStep.factorName') });
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

  if (factors.isPending) return <p role="status">{t('settings.loading')}</p>;
  if (on) {
    return (
      <>
        <p>
          <strong>{t('twoStep.on')}</strong> {t('twoStep.onHint')}
        </p>
        <ErrorText error={turnOff.error} />
        <button type="button" onClick={() => turnOff.mutate()} disabled={turnOff.isPending}>
          {t('twoStep.turnOff')}
        </button>
      </>
    );
  }
  if (enrollment.status === 'idle' || enrollment.status === 'enrolling') {
    return (
      <>
        <p>
          <strong>{t('twoStep.off')}</strong> {t('twoStep.offHint')}
        </p>
        <ErrorText error={enrollment.error ?? factors.error} />
        <button
          type="button"
          onClick={() => void enrollment.start()}
          disabled={enrollment.status === 'enrolling'}
        >
          {enrollment.status === 'enrolling' ? t('twoStep.preparing') : t('twoStep.turnOnFull')}
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
          {t('twoStep.scan')}
          {enrollment.qrCode ? (
            <img className="qr" src={enrollment.qrCode} alt={t('twoStep.qrAlt')} />
          ) : null}
          <span className="hint">
            {t('twoStep.cantScan')} <code data-testid="totp-secret">{enrollment.secret}</code>
          </span>
        </li>
        <li>{t('twoStep.enterShown')}</li>
      </ol>
      <CodeField value={code} onChange={setCode} />
      <ErrorText error={enrollment.error} />
      <div className="row-buttons">
        <button type="submit" className="primary" disabled={enrollment.status === 'verifying'}>
          {enrollment.status === 'verifying' ? t('twoStep.checking') : t('twoStep.turnOn')}
        </button>
        <button type="button" onClick={() => void enrollment.cancel()}>
          {t('dialog.cancel')}
        </button>
      </div>
    </form>
  );
}
