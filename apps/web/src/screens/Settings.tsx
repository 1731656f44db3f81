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
import { LOCALES, type Locale, setLocale, t, useLocale } from '../i18n';
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

const THEMES = ['system', 'light', 'dark'] as const satisfies readonly Theme[];

/** The language of every screen: applied at once, kept in this browser. */
function Language() {
  const locale = useLocale();
  return (
    <fieldset className="theme-choice">
      <legend>{t('lang.legend')}</legend>
      {(Object.keys(LOCALES) as Locale[]).map((l) => (
        <label key={l} lang={l}>
          <input
            type="radio"
            name="language"
            value={l}
            checked={locale === l}
            onChange={() => void setLocale(l)}
          />
          {LOCALES[l]}
        </label>
      ))}
      <p className="hint">{t('lang.hint')}</p>
    </fieldset>
  );
}

/** System, Light or Dark, applied at once and kept in this browser. */
function Appearance() {
  const [theme, pick] = useState<Theme>(storedTheme);
  return (
    <fieldset className="theme-choice">
      <legend>{t('settings.theme')}</legend>
      {THEMES.map((v) => (
        <label key={v}>
          <input
            type="radio"
            name="theme"
            value={v}
            checked={theme === v}
            onChange={() => {
              pick(v);
              setTheme(v);
            }}
          />
          {t(`settings.theme.${v}`)}
        </label>
      ))}
      <p className="hint">{t('settings.theme.hint')}</p>
    </fieldset>
  );
}

function Saved({ show, text = t('settings.saved') }: { show: boolean; text?: string }) {
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
      <h1>{t('settings.title')}</h1>
      <Section title={t('settings.storage')}>
        <ErrorText error={usage.error} />
        {usage.data ? (
          <>
            <progress max={100} value={pct} aria-label={t('settings.storageUsed')} />
            <p>
              {t('settings.usage', {
                used: formatBytes(used),
                quota: formatBytes(quota),
                count: usage.data.file_count,
              })}
            </p>
          </>
        ) : (
          <p role="status">{t('settings.loading')}</p>
        )}
      </Section>
      <Section title={t('settings.versions')}>
        <VersionSettings />
      </Section>
      <Section title={t('settings.appearance')}>
        <Appearance />
      </Section>
      <Section title={t('lang.title')}>
        <Language />
      </Section>
      <Section title={t('settings.profile')}>
        <form
          onSubmit={(e: FormEvent) => {
            e.preventDefault();
            saveName.mutate(name.trim().slice(0, 80));
          }}
        >
          <Field label={t('settings.displayName')} value={name} maxLength={80} onChange={setName} />
          <Submit
            error={saveName.error}
            note={<Saved show={saveName.isSuccess} />}
            pending={saveName.isPending}
          >
            {t('settings.saveName')}
          </Submit>
        </form>
      </Section>
      <Section title={t('settings.email')}>
        <p>{t('settings.currentEmail', { email: user?.email ?? '' })}</p>
        <form
          onSubmit={(e: FormEvent) => {
            e.preventDefault();
            saveEmail.mutate(email.trim());
          }}
        >
          <Field
            label={t('settings.newEmail')}
            type="email"
            autoComplete="email"
            value={email}
            onChange={setEmail}
            required
          />
          <Submit
            error={saveEmail.error}
            note={<Saved show={saveEmail.isSuccess} text={t('settings.emailSaved')} />}
            pending={saveEmail.isPending}
          >
            {t('settings.changeEmail')}
          </Submit>
        </form>
      </Section>
      <Section title={t('settings.password')}>
        <form
          onSubmit={(e: FormEvent) => {
            e.preventDefault();
            if (password.length < 8) {
              setProblem(t('settings.passwordShort'));
              return;
            }
            setProblem(null);
            savePassword.mutate(password);
          }}
        >
          {/* Its error is not linked to the input (no aria-describedby), as before. */}
          <Field
            label={t('settings.newPassword')}
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
            note={<Saved show={savePassword.isSuccess} text={t('settings.passwordChanged')} />}
            pending={savePassword.isPending}
          >
            {t('settings.changePassword')}
          </Submit>
        </form>
      </Section>
      <Section title={t('settings.signInMethods')}>
        <SignInMethods />
      </Section>
      <Section title={t('settings.passkeys')}>
        <PasskeySettings />
      </Section>
      <Section title={t('settings.twoStep')}>
        <TwoStepSettings />
      </Section>
      <Section title={t('settings.sessions')}>
        <p>{t('settings.sessionsHint')}</p>
        <ErrorText error={others.error} />
        <Saved show={others.isSuccess} text={t('settings.signedOutElsewhere')} />
        <div className="row-buttons">
          <button type="button" onClick={() => others.mutate()} disabled={others.isPending}>
            {t('settings.signOutElsewhere')}
          </button>
          <SignOutButton className="danger" before={forgetThumbnails}>
            {t('settings.signOut')}
          </SignOutButton>
        </div>
      </Section>
    </main>
  );
}
