import {
  useAuth,
  useBackendMutation,
  useBackendQuery,
  useQueryClient,
  useUser,
} from '@app/backend-react';
import { type FormEvent, type ReactNode, useEffect, useId, useState } from 'react';
import { ErrorText } from '../components/ErrorText';
import { Field, Submit } from '../components/Form';
import { SignOutButton } from '../components/SignOutButton';
import { formatBytes } from '../format';
import { getProfile, keys, storageUsage, type Usage, updateProfile } from '../lib/api';
import type { AuthApi, DriveClient } from '../lib/client-types';
import { setTheme, storedTheme, type Theme } from '../lib/theme';
import { forgetThumbnails } from '../lib/thumbnails';
import { useDrive } from '../lib/use-drive';
import { deleteForever } from '../lib/views-api';
import { PasskeySettings } from './Passkeys';
import { SignInMethods } from './SignInMethods';
import { TwoStepSettings } from './TwoStep';
import { VersionSettings } from './VersionSettings';

function Section({ title, children }: { title: string; children: ReactNode }) {
  const id = useId();
  return (
    <section className="card" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}

const THEMES: Array<{ value: Theme; label: string }> = [
  { value: 'system', label: 'System' },
  { value: 'light', label: 'Light' },
  { value: 'dark', label: 'Dark' },
];

/** System, Light or Dark, applied at once and kept in this browser. */
function Appearance() {
  const [theme, pick] = useState<Theme>(storedTheme);
  return (
    <fieldset className="theme-choice">
      <legend>Theme</legend>
      {THEMES.map((t) => (
        <label key={t.value}>
          <input
            type="radio"
            name="theme"
            value={t.value}
            checked={theme === t.value}
            onChange={() => {
              pick(t.value);
              setTheme(t.value);
            }}
          />
          {t.label}
        </label>
      ))}
      <p className="hint">System follows your device’s light or dark setting.</p>
    </fieldset>
  );
}

function Saved({ show, text = 'Saved.' }: { show: boolean; text?: string }) {
  return show ? (
    <p className="ok" role="status">
      {text}
    </p>
  ) : null;
}

export default function SettingsScreen() {
  const user = useUser();
  const auth = useAuth<AuthApi>();
  const uid = user?.id ?? '';

  const profile = useBackendQuery<{ display_name: string } | null, DriveClient>(
    keys.profile(uid),
    (c) => getProfile(c, uid),
    { enabled: Boolean(uid) },
  );
  const usage = useBackendQuery<Usage, DriveClient>(keys.usage, (c) => storageUsage(c));
  const client = useDrive();
  const queryClient = useQueryClient();
  // Trash entries past 30 days go before the quota is shown (see the README, "Trash").
  useEffect(() => {
    void Promise.resolve(deleteForever(client, 'purge')).then((r) => {
      if (!r.error && (r.data as { deleted?: number } | null)?.deleted) {
        void queryClient.invalidateQueries({ queryKey: keys.usage });
      }
    });
  }, [client, queryClient]);
  const [name, setName] = useState('');
  useEffect(() => {
    if (profile.data) setName(profile.data.display_name);
  }, [profile.data]);
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [problem, setProblem] = useState<string | null>(null);

  const saveName = useBackendMutation(
    async (v: string, c: DriveClient) => {
      const r = await updateProfile(c, uid, v);
      if (r.error) return r;
      return auth.updateUser({ data: { display_name: v } });
    },
    { invalidates: [keys.profile(uid)] },
  );
  const saveEmail = useBackendMutation((v: string) => auth.updateUser({ email: v }));
  const savePassword = useBackendMutation((v: string) => auth.updateUser({ password: v }), {
    onSuccess: () => setPassword(''),
  });
  const others = useBackendMutation(async () => {
    const { error } = await auth.signOut({ scope: 'others' });
    return { data: true, error };
  });

  const used = Number(usage.data?.used_bytes ?? 0);
  const quota = Number(usage.data?.quota_bytes ?? 0);
  const pct = quota > 0 ? Math.min(100, (used / quota) * 100) : 0;

  return (
    <main className="page settings">
      <h1>Settings</h1>
      <Section title="Storage">
        <ErrorText error={usage.error} />
        {usage.data ? (
          <>
            <progress max={100} value={pct} aria-label="Storage used" />
            <p>
              {formatBytes(used)} of {formatBytes(quota)} used · {usage.data.file_count}{' '}
              {usage.data.file_count === 1 ? 'file' : 'files'}
            </p>
          </>
        ) : (
          <p role="status">Loading…</p>
        )}
      </Section>
      <Section title="Versions">
        <VersionSettings />
      </Section>
      <Section title="Appearance">
        <Appearance />
      </Section>
      <Section title="Profile">
        <form
          onSubmit={(e: FormEvent) => {
            e.preventDefault();
            saveName.mutate(name.trim().slice(0, 80));
          }}
        >
          <Field label="Display name" value={name} maxLength={80} onChange={setName} />
          <Submit
            error={saveName.error}
            note={<Saved show={saveName.isSuccess} />}
            pending={saveName.isPending}
          >
            Save name
          </Submit>
        </form>
      </Section>
      <Section title="Email">
        <p>Current email: {user?.email}</p>
        <form
          onSubmit={(e: FormEvent) => {
            e.preventDefault();
            saveEmail.mutate(email.trim());
          }}
        >
          <Field
            label="New email"
            type="email"
            autoComplete="email"
            value={email}
            onChange={setEmail}
            required
          />
          <Submit
            error={saveEmail.error}
            note={
              <Saved
                show={saveEmail.isSuccess}
                text="Check both mailboxes to confirm the change."
              />
            }
            pending={saveEmail.isPending}
          >
            Change email
          </Submit>
        </form>
      </Section>
      <Section title="Password">
        <form
          onSubmit={(e: FormEvent) => {
            e.preventDefault();
            if (password.length < 8) {
              setProblem('Use at least 8 characters.');
              return;
            }
            setProblem(null);
            savePassword.mutate(password);
          }}
        >
          {/* Its error is not linked to the input (no aria-describedby), as before. */}
          <Field
            label="New password"
            type="password"
            autoComplete="new-password"
            value={password}
            onChange={setPassword}
            invalid={Boolean(problem)}
          >
            {problem ? <p className="field-error">{problem}</p> : null}
          </Field>
          <Submit
            error={savePassword.error}
            note={<Saved show={savePassword.isSuccess} text="Password changed." />}
            pending={savePassword.isPending}
          >
            Change password
          </Submit>
        </form>
      </Section>
      <Section title="Sign-in methods">
        <SignInMethods />
      </Section>
      <Section title="Passkeys">
        <PasskeySettings />
      </Section>
      <Section title="2-step verification">
        <TwoStepSettings />
      </Section>
      <Section title="Sessions">
        <p>Signed in somewhere you no longer use? Sign out of every other device and browser.</p>
        <ErrorText error={others.error} />
        <Saved show={others.isSuccess} text="Signed out everywhere else." />
        <div className="row-buttons">
          <button type="button" onClick={() => others.mutate()} disabled={others.isPending}>
            Sign out everywhere else
          </button>
          <SignOutButton className="danger" before={forgetThumbnails}>
            Sign out
          </SignOutButton>
        </div>
      </Section>
    </main>
  );
}
