import { useAuth, useBackendMutation, useSession } from '@app/backend-react';
import { type FormEvent, type ReactNode, useEffect, useId, useState } from 'react';
import { Link, useLocation, useNavigate } from 'react-router';
import { ErrorText } from '../components/ErrorText';
import type { AuthApi } from '../lib/client-types';
import { readRecoveryError } from '../lib/recovery';
import { markSignedIn, markSignOutByUser } from '../lib/session';
import { PasskeySignInButton } from './Passkeys';
import { ProviderButtons } from './SignInMethods';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const MIN_PASSWORD = 8;

export function AuthCard({ title, children }: { title: string; children: ReactNode }) {
  return (
    <main className="auth">
      <div className="auth-card">
        <p className="brand" aria-hidden="true">
          Drive
        </p>
        <h1>{title}</h1>
        {children}
      </div>
    </main>
  );
}

function Field(props: {
  label: string;
  type?: string;
  name: string;
  value: string;
  onChange: (value: string) => void;
  autoComplete?: string;
  error?: string | null;
  hint?: string;
  required?: boolean;
}) {
  const id = useId();
  const described = props.error ? `${id}-error` : props.hint ? `${id}-hint` : undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      <input
        id={id}
        name={props.name}
        type={props.type ?? 'text'}
        value={props.value}
        autoComplete={props.autoComplete}
        required={props.required ?? true}
        aria-invalid={props.error ? true : undefined}
        aria-describedby={described}
        onChange={(e) => props.onChange(e.target.value)}
      />
      {props.error ? (
        <p className="field-error" id={`${id}-error`}>
          {props.error}
        </p>
      ) : props.hint ? (
        <p className="hint" id={`${id}-hint`}>
          {props.hint}
        </p>
      ) : null}
    </div>
  );
}

function emailProblem(email: string): string | null {
  return EMAIL.test(email.trim()) ? null : 'Enter a valid email address.';
}
function passwordProblem(password: string): string | null {
  return password.length >= MIN_PASSWORD ? null : `Use at least ${MIN_PASSWORD} characters.`;
}

export function SignIn() {
  const auth = useAuth<AuthApi>();
  const location = useLocation();
  const expired = (location.state as { expired?: boolean } | null)?.expired === true;
  const [email, setEmail] = useState('');
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
    <AuthCard title="Sign in">
      {expired && !signIn.error ? (
        <p className="notice" role="status">
          Your session has expired. Sign in again — nothing was lost.
        </p>
      ) : null}
      <form onSubmit={submit} noValidate>
        <Field
          label="Email"
          name="email"
          type="email"
          autoComplete="email"
          value={email}
          onChange={setEmail}
        />
        <Field
          label="Password"
          name="password"
          type="password"
          autoComplete="current-password"
          value={password}
          onChange={setPassword}
        />
        <ErrorText error={signIn.error} />
        <button className="primary" type="submit" disabled={signIn.isPending}>
          {signIn.isPending ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <ProviderButtons />
      <PasskeySignInButton />
      <p className="links">
        <Link to="/forgot-password">Forgot your password?</Link>
        <span>
          New here? <Link to="/sign-up">Create an account</Link>
        </span>
      </p>
    </AuthCard>
  );
}

export function SignUp() {
  const auth = useAuth<AuthApi>();
  const [email, setEmail] = useState('');
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
      <AuthCard title="Check your email">
        <p>We sent a confirmation link to {email}. Open it to finish creating your account.</p>
        <p className="links">
          <Link to="/sign-in">Back to sign in</Link>
        </p>
      </AuthCard>
    );
  }
  return (
    <AuthCard title="Create your account">
      <form onSubmit={submit} noValidate>
        <Field
          label="Display name"
          name="name"
          autoComplete="nickname"
          value={name}
          onChange={setName}
          required={false}
          hint="Optional, up to 80 characters."
        />
        <Field
          label="Email"
          name="email"
          type="email"
          autoComplete="email"
          value={email}
          onChange={setEmail}
          error={emailError}
        />
        <Field
          label="Password"
          name="password"
          type="password"
          autoComplete="new-password"
          value={password}
          onChange={setPassword}
          error={passwordError}
          hint={`At least ${MIN_PASSWORD} characters.`}
        />
        <ErrorText error={signUp.error} />
        <button className="primary" type="submit" disabled={signUp.isPending}>
          {signUp.isPending ? 'Creating account…' : 'Create account'}
        </button>
      </form>
      <ProviderButtons />
      <p className="links">
        <span>
          Already have an account? <Link to="/sign-in">Sign in</Link>
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
    <AuthCard title="Reset your password">
      {sent ? (
        <p role="status">
          If an account exists for {email.trim()}, we sent it an email with a link and a code to
          reset the password.
        </p>
      ) : (
        <form onSubmit={submit} noValidate>
          <Field
            label="Email"
            name="email"
            type="email"
            autoComplete="email"
            value={email}
            onChange={setEmail}
            error={problem}
          />
          <button className="primary" type="submit">
            Send reset email
          </button>
        </form>
      )}
      <p className="links">
        <Link to="/reset-password">I have a code</Link>
        <Link to="/sign-in">Back to sign in</Link>
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
      <AuthCard title="Enter your reset code">
        <form
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            setLinkState('none');
            const bad =
              emailProblem(email) ?? (code.trim() ? null : 'Enter the code from the email.');
            setProblem(bad);
            if (!bad) verify.mutate({ email: email.trim(), token: code.trim() });
          }}
        >
          <Field
            label="Email"
            name="email"
            type="email"
            autoComplete="email"
            value={email}
            onChange={setEmail}
          />
          <Field
            label="Code from the email"
            name="code"
            autoComplete="one-time-code"
            value={code}
            onChange={setCode}
            error={problem}
          />
          {verify.error || linkState === 'failed' ? (
            <p className="error" role="alert">
              This code is not valid or has expired. Ask for a new email.
            </p>
          ) : null}
          <button className="primary" type="submit" disabled={verify.isPending}>
            Continue
          </button>
        </form>
        <p className="links">
          <Link to="/forgot-password">Send a new email</Link>
        </p>
      </AuthCard>
    );
  }
  return (
    <AuthCard title="Choose a new password">
      <form
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          const bad = passwordProblem(password);
          setProblem(bad);
          if (!bad) update.mutate({ password });
        }}
      >
        <Field
          label="New password"
          name="password"
          type="password"
          autoComplete="new-password"
          value={password}
          onChange={setPassword}
          error={problem}
          hint={`At least ${MIN_PASSWORD} characters.`}
        />
        <ErrorText error={update.error} />
        <button className="primary" type="submit" disabled={update.isPending}>
          Save password
        </button>
      </form>
      <p className="links">
        <button
          type="button"
          className="link"
          onClick={() => {
            markSignOutByUser();
            void auth.signOut();
          }}
        >
          Cancel
        </button>
      </p>
    </AuthCard>
  );
}
