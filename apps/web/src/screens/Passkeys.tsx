import {
  type PasskeyLike,
  useAuthProviders,
  usePasskeySignIn,
  usePasskeys,
} from '@app/backend-react';
import { browserSupportsWebAuthn } from '@app/backend-sdk/webauthn';
import { type FormEvent, useState } from 'react';
import { ErrorText } from '../components/ErrorText';
import { Field } from '../components/Form';
import { formatDate } from '../format';
import { t } from '../i18n';
import { markSignedIn } from '../lib/session';

/**
 * Whether passkeys can work on this page: a browser with WebAuthn, on a site with a name
 * (a passkey belongs to a domain; `localhost` counts, an IP address does not).
 */
export function passkeysPossible(hostname = globalThis.location?.hostname ?? ''): boolean {
  const ip = /^[\d.]+$/.test(hostname) || hostname.includes(':') || hostname.startsWith('[');
  return !ip && browserSupportsWebAuthn();
}

/** "Sign in with a passkey" on the sign-in screen (absent where passkeys cannot work). */
export function PasskeySignInButton() {
  const passkey = usePasskeySignIn();
  // The "Continue with …" buttons above, when there are any, already draw the "or".
  const providers = useAuthProviders();
  if (!passkeysPossible()) return null;
  return (
    <div className="passkey-sign-in">
      {(providers.data?.external.length ?? 0) > 0 ? null : (
        <p className="divider">
          <span>{t('methods.or')}</span>
        </p>
      )}
      <ErrorText error={passkey.error} />
      <button
        type="button"
        disabled={passkey.pending}
        onClick={() => {
          void passkey.signIn().then((ok) => {
            if (ok) markSignedIn();
          });
        }}
      >
        {passkey.pending ? t('passkeys.waiting') : t('passkeys.signIn')}
      </button>
    </div>
  );
}

const MAX_NAME_BYTES = 120;

function RenameForm({
  passkey,
  onSave,
  onCancel,
  busy,
}: {
  passkey: PasskeyLike;
  onSave: (name: string) => void;
  onCancel: () => void;
  busy: boolean;
}) {
  const [name, setName] = useState(passkey.friendly_name ?? '');
  const [problem, setProblem] = useState<string | null>(null);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const trimmed = name.trim();
    if (!trimmed) return setProblem(t('passkeys.nameEmpty'));
    if (new TextEncoder().encode(trimmed).length > MAX_NAME_BYTES) {
      return setProblem(t('passkeys.nameLong'));
    }
    setProblem(null);
    onSave(trimmed);
  };
  return (
    <form className="passkey-rename" onSubmit={submit} noValidate>
      <Field
        label={t('passkeys.name')}
        value={name}
        maxLength={MAX_NAME_BYTES}
        error={problem}
        onChange={setName}
      />
      <div className="row-buttons">
        <button type="submit" disabled={busy}>
          {t('form.save')}
        </button>
        <button type="button" onClick={onCancel}>
          {t('dialog.cancel')}
        </button>
      </div>
    </form>
  );
}

/** Settings → Passkeys: the user's passkeys; add (the browser's prompt), rename, remove. */
export function PasskeySettings() {
  const { passkeys, isPending, error, busy, add, rename, remove } = usePasskeys();
  const [editing, setEditing] = useState<string | null>(null);
  const [removing, setRemoving] = useState<string | null>(null);
  const [added, setAdded] = useState(false);
  const possible = passkeysPossible();
  const nameOf = (p: PasskeyLike) => p.friendly_name || t('passkeys.defaultName');
  return (
    <>
      <p>{t('passkeys.intro')}</p>
      {isPending ? <p role="status">{t('settings.loading')}</p> : null}
      {passkeys && passkeys.length === 0 ? <p>{t('passkeys.none')}</p> : null}
      {passkeys && passkeys.length > 0 ? (
        <ul className="passkeys" aria-label={t('passkeys.list')}>
          {passkeys.map((p) => (
            <li key={p.id} data-passkey={p.id}>
              {editing === p.id ? (
                <RenameForm
                  passkey={p}
                  busy={busy}
                  onCancel={() => setEditing(null)}
                  onSave={(name) => {
                    void rename(p.id, name).then((ok) => {
                      if (ok) setEditing(null);
                    });
                  }}
                />
              ) : removing === p.id ? (
                <fieldset className="passkey-remove">
                  <legend>{t('passkeys.removeTitle', { name: nameOf(p) })}</legend>
                  <p>{t('passkeys.removeHint')}</p>
                  <div className="row-buttons">
                    <button
                      type="button"
                      className="danger"
                      disabled={busy}
                      onClick={() => {
                        void remove(p.id).then((ok) => {
                          if (ok) setRemoving(null);
                        });
                      }}
                    >
                      {t('passkeys.removeConfirm')}
                    </button>
                    <button type="button" onClick={() => setRemoving(null)}>
                      {t('passkeys.keep')}
                    </button>
                  </div>
                </fieldset>
              ) : (
                <>
                  <div className="passkey-info">
                    <strong>{nameOf(p)}</strong>
                    <span className="hint">
                      {p.last_used_at
                        ? t('passkeys.addedUsed', {
                            added: formatDate(p.created_at),
                            used: formatDate(p.last_used_at),
                          })
                        : t('passkeys.addedUnused', { added: formatDate(p.created_at) })}
                    </span>
                  </div>
                  <div className="row-buttons">
                    <button
                      type="button"
                      aria-label={t('passkeys.renameName', { name: nameOf(p) })}
                      onClick={() => {
                        setRemoving(null);
                        setEditing(p.id);
                      }}
                    >
                      {t('passkeys.rename')}
                    </button>
                    <button
                      type="button"
                      aria-label={t('passkeys.removeName', { name: nameOf(p) })}
                      onClick={() => {
                        setEditing(null);
                        setRemoving(p.id);
                      }}
                    >
                      {t('passkeys.remove')}
                    </button>
                  </div>
                </>
              )}
            </li>
          ))}
        </ul>
      ) : null}
      <ErrorText error={error} />
      {added && !error ? (
        <p className="ok" role="status">
          {t('passkeys.added')}
        </p>
      ) : null}
      {possible ? (
        <button
          type="button"
          disabled={busy}
          onClick={() => {
            setAdded(false);
            void add().then(setAdded);
          }}
        >
          {t('passkeys.add')}
        </button>
      ) : (
        <p className="hint">{t('passkeys.impossible')}</p>
      )}
    </>
  );
}
