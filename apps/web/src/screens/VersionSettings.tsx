import { useBackendMutation, useBackendQuery, useUser } from '@app/backend-react';
import { type FormEvent, useEffect, useState } from 'react';
import { Field, Submit } from '../components/Form';
import { t } from '../i18n';
import type { DriveClient } from '../lib/client-types';

interface Retention {
  keep_days: number;
  keep_versions: number;
}

const DEFAULTS: Retention = { keep_days: 30, keep_versions: 100 };

/**
 * Settings › Versions: how long older versions of my files are kept — the last N days and the
 * last N versions (an older one goes past either; the current one always stays). Stored in
 * `version_settings`, which only its owner reads and writes; applied by the scheduled purge.
 */
export function VersionSettings() {
  const uid = useUser()?.id ?? '';
  const key = ['version-settings', uid];
  const stored = useBackendQuery<Retention | null, DriveClient>(
    key,
    (c) =>
      c
        .from('version_settings')
        .select('keep_days,keep_versions')
        .eq('owner_id', uid)
        .maybeSingle(),
    { enabled: Boolean(uid) },
  );
  const [days, setDays] = useState(String(DEFAULTS.keep_days));
  const [count, setCount] = useState(String(DEFAULTS.keep_versions));
  useEffect(() => {
    const r = stored.data ?? DEFAULTS;
    setDays(String(r.keep_days));
    setCount(String(r.keep_versions));
  }, [stored.data]);
  const save = useBackendMutation(
    (r: Retention, c: DriveClient) => c.from('version_settings').upsert({ owner_id: uid, ...r }),
    { invalidates: [key] },
  );
  // The form shows once the stored values are in (typing earlier would be overwritten).
  if (stored.isPending) return <p role="status">{t('settings.loading')}</p>;
  return (
    <form
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        save.mutate({ keep_days: Number(days), keep_versions: Number(count) });
      }}
    >
      <p>{t('versions.intro')}</p>
      <Field
        label={t('versions.days')}
        type="number"
        min={1}
        max={3650}
        required
        value={days}
        onChange={setDays}
      />
      <Field
        label={t('versions.count')}
        type="number"
        min={1}
        max={1000}
        required
        value={count}
        onChange={setCount}
      />
      <Submit
        error={save.error ?? stored.error}
        note={
          save.isSuccess ? (
            <p className="ok" role="status">
              {t('settings.saved')}
            </p>
          ) : null
        }
        pending={save.isPending}
      >
        {t('form.save')}
      </Submit>
    </form>
  );
}
