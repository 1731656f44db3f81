import { useAuth, useBackendMutation, useSession } from '@app/backend-react';
import { type FormEvent, type ReactNode, useEffect, useState } from 'react';
import { Link, useLocation, useNavigate } from 'react-router';
import { Field, Submit } from '../components/Form';
import { SignOutButton } from '../components/SignOutButton';
import { t } from '../i18n';
import type { AuthApi } from '../lib/client-types';
import { readRecoveryError } from '../lib/recovery';
import { markSignedIn } from '../lib/session';
import { PasskeySignInButton } from './Passkeys';
import { ProviderButtons } from './SignInMethods';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const MIN_PASSWORD = 8;

export function AuthCard({ title, children }: { title: string; children: ReactNode }) {
  return (
    <main className="auth">
      <div className="auth-card">
        <p className="brand" aria-hidden="true">
          {t('nav.brand')}
        </p>
        <h1>{title}</h1>
        {children}
      </div>
    </main>
  );
}

/** The email field of the sign-in, sign-up and reset forms. */
function EmailField(props: {
  value: string;
  onChange(value: string): void;
  error?: string | null;
}) {
  return (
    <Field
      label={t('auth.email')}
      name="email"
      type="email"
      autoComplete="email"
      required
      {...props}
    />
  );
}

/** A password field: the current one (sign-in) or a new one, with the rule as its hint. */
function PasswordField({
  isNew,
  label = t('auth.password'),
  ...props
}: {
  isNew?: boolean;
  label?: string;
  value: string;
  onChange(value: string): void;
  error?: string | null;
}) {
  return (
    <Field
      label={label}
      name="password"
      type="password"
      autoComplete={isNew ? 'new-password' : 'current-password'}
      required
      hint={isNew ? t('auth.passwordHint', { min: MIN_PASSWORD }) : undefined}
      {...props}
    />
  );
}

/** The address an invitation link brought along (`state.email`), to prefill the form. */
function stateEmail(state: unknown): string {
  const email = (state as { email?: unknown } | null)?.email;
  return typeof email === 'string' ? email : '';
}

function emailProblem(email: string): string | null {
  return EMAIL.test(email.trim()) ? null : t('error.invalid_email');
}
function passwordProblem(password: string): string | null {
  return password.length >= MIN_PASSWORD ? null : t('auth.passwordShort', { min: MIN_PASSWORD });
}

export function SignIn() {
  const auth = useAuth<AuthApi>();
  const location = useLocation();
  const expired = (location.state as { expired?: boolean } | null)?.expired === true;
  const [email, setEmail] = useState(stateEmail(location.state));
  const [password, setPassword] = useState('');
  const signIn = useBackendMutation(
    (v: { email: string; password: string }) => auth.signInWithPassword(v),
    { onSuccess: () => markSignedIn() },
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    signIn.mutate({ email: email.trim(), password });
  };
  return (
    <AuthCard title={t('auth.signIn')}>
      {expired && !signIn.error ? (
        <p className="notice" role="status">
          {t('error.session_expired')}
        </p>
      ) : null}
      <form onSubmit={submit} noValidate>
        <EmailField value={email} onChange={setEmail} />
        <PasswordField value={password} onChange={setPassword} />
        <Submit error={signIn.error} pending={signIn.isPending} busy={t('auth.signingIn')} primary>
          {t('auth.signIn')}
        </Submit>
      </form>
      <ProviderButtons />
      <PasskeySignInButton />
      <p className="links">
        <Link to="/forgot-password">{t('auth.forgot')}</Link>
        <span>
          {t('auth.newHere')}{' '}
          <Link to="/sign-up" state={location.state}>
            {t('auth.createAccountLink')}
          </Link>
        </span>
      </p>
    </AuthCard>
  );
}

export function SignUp() {
  const auth = useAuth<AuthApi>();
  const location = useLocation();
  const [email, setEmail] = useState(stateEmail(location.state));
  const [password, setPassword] = useState('');
  const [name, setName] = useState('');
  const [touched, setTouched] = useState(false);
  const [confirm, setConfirm] = useState(false);
  const signUp = useBackendMutation(
    (v: { email: string; password: string; name: string }) =>
      auth.signUp({
        email: v.email,
        password: v.password,
        options: { data: { display_name: v.name } },
      }),
    {
      onSuccess: (data) => {
        if (data?.session) markSignedIn();
        else setConfirm(true);
      },
    },
  );
  const emailError = touched ? emailProblem(email) : null;
  const passwordError = touched ? passwordProblem(password) : null;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setTouched(true);
    if (emailProblem(email) || passwordProblem(password)) return;
    signUp.mutate({ email: email.trim(), password, name: name.trim().slice(0, 80) });
  };
  if (confirm) {
    return (
      <AuthCard title={t('auth.checkEmail')}>
        <p>{t('auth.confirmSent', { email })}</p>
        <p className="links">
          <Link to="/sign-in">{t('auth.backToSignIn')}</Link>
        </p>
      </AuthCard>
    );
  }
  return (
    <AuthCard title={t('auth.createTitle')}>
      <form onSubmit={submit} noValidate>
        <Field
          label={t('settings.displayName')}
          name="name"
          type="text"
          autoComplete="nickname"
          value={name}
          onChange={setName}
          hint={t('auth.displayNameHint')}
        />
        <EmailField value={email} onChange={setEmail} error={emailError} />
        <PasswordField isNew value={password} onChange={setPassword} error={passwordError} />
        <Submit error={signUp.error} pending={signUp.isPending} busy={t('auth.creating')} primary>
          {t('auth.createAccount')}
        </Submit>
      </form>
      <ProviderButtons />
      <p className="links">
        <span>
          {t('auth.haveAccount')}{' '}
          <Link to="/sign-in" state={location.state}>
            {t('auth.signIn')}
          </Link>
        </span>
      </p>
    </AuthCard>
  );
}

export function ForgotPassword() {
  const auth = useAuth<AuthApi>();
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const bad = emailProblem(email);
    setProblem(bad);
    if (bad) return;
    // Same answer whatever happened: no account probing.
    await auth
      .resetPasswordForEmail(email.trim(), {
        redirectTo: `${window.location.origin}/reset-password`,
      })
      .catch(() => undefined);
    setSent(true);
  };
  return (
    <AuthCard title={t('auth.resetTitle')}>
      {sent ? (
        <p role="status">{t('auth.resetSent', { email: email.trim() })}</p>
      ) : (
        <form onSubmit={submit} noValidate>
          <EmailField value={email} onChange={setEmail} error={problem} />
          <Submit primary>{t('auth.sendReset')}</Submit>
        </form>
      )}
      <p className="links">
        <Link to="/reset-password">{t('auth.haveCode')}</Link>
        <Link to="/sign-in">{t('auth.backToSignIn')}</Link>
      </p>
    </AuthCard>
  );
}

export function ResetPassword() {
  const auth = useAuth<AuthApi>();
  const { session, loading } = useSession();
  const navigate = useNavigate();
  const [email, setEmail] = useState('');
  const [code, setCode] = useState('');
  const [password, setPassword] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  // Arriving from the email's link: a working link's session was taken in by the SDK before
  // this renders; a failed one leaves its error in the fragment, taken out of the address bar.
  const [linkError] = useState(() => readRecoveryError(window.location.hash));
  const [linkState, setLinkState] = useState<'none' | 'failed'>(linkError ? 'failed' : 'none');
  useEffect(() => {
    if (linkError)
      navigate({ pathname: '/reset-password', search: window.location.search }, { replace: true });
  }, [linkError, navigate]);
  const verify = useBackendMutation(async (v: { email: string; token: string }) => {
    if (!auth.verifyOtp) return { data: null, error: new Error('Codes are not supported') };
    return auth.verifyOtp({ email: v.email, token: v.token, type: 'recovery' });
  });
  const update = useBackendMutation(
    (v: { password: string }) => auth.updateUser({ password: v.password }),
    {
      onSuccess: () => {
        markSignedIn();
        navigate('/files', { replace: true });
      },
    },
  );
  if (loading) return null;
  if (!session) {
    return (
      <AuthCard title={t('auth.codeTitle')}>
        <form
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            setLinkState('none');
            const bad = emailProblem(email) ?? (code.trim() ? null : t('auth.codeNeeded'));
            setProblem(bad);
            if (!bad) verify.mutate({ email: email.trim(), token: code.trim() });
          }}
        >
          <EmailField value={email} onChange={setEmail} />
          <Field
            label={t('auth.codeLabel')}
            name="code"
            type="text"
            autoComplete="one-time-code"
            required
            value={code}
            onChange={setCode}
            error={problem}
          />
          <Submit
            error={verify.error || linkState === 'failed'}
            message={t('auth.codeInvalid')}
            pending={verify.isPending}
            primary
          >
            {t('auth.continue')}
          </Submit>
        </form>
        <p className="links">
          <Link to="/forgot-password">{t('auth.sendNew')}</Link>
        </p>
      </AuthCard>
    );
  }
  return (
    <AuthCard title={t('auth.newPasswordTitle')}>
      <form
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          const bad = passwordProblem(password);
          setProblem(bad);
          if (!bad) update.mutate({ password });
        }}
      >
        <PasswordField
          isNew
          label={t('settings.newPassword')}
          value={password}
          onChange={setPassword}
          error={problem}
        />
        <Submit error={update.error} pending={update.isPending} primary>
          {t('auth.savePassword')}
        </Submit>
      </form>
      <p className="links">
        <SignOutButton className="link">{t('dialog.cancel')}</SignOutButton>
      </p>
    </AuthCard>
  );
}
