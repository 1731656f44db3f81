import { unwrap, useBackendQuery, useQueryClient, useUser } from '@app/backend-react';
import { type FormEvent, useState } from 'react';
import { useNavigate } from 'react-router';
import { t } from '../i18n';
import type { MessageKey } from '../i18n/messages/en';
import { type FolderRow, keys, LIVE_KEYS } from '../lib/api';
import type { DriveClient } from '../lib/client-types';
import type { Role } from '../lib/roles';
import type { Entry } from '../lib/selection';
import {
  type AccessRow,
  listAccess,
  notifyPeople,
  setShareRole,
  shareWith,
  transferOwnership,
  unshare,
} from '../lib/sharing-api';
import { showToast } from '../lib/toasts';
import { useDrive, userErrorOf } from '../lib/use-drive';
import { ConfirmDialog } from './Dialog';
import { ErrorText } from './ErrorText';
import { Field, FormField } from './Form';

const ROLE_WORD: Record<AccessRow['role'], MessageKey> = {
  owner: 'people.role.owner',
  editor: 'people.role.editor',
  viewer: 'people.role.viewer',
};

/** "Added by Ada" / "Invitation sent" / "Inherited from “Team” · Added by Ada". */
function origin(row: AccessRow, folderName: (id: string) => string | undefined): string {
  if (row.role === 'owner') return '';
  const parts: string[] = [];
  if (row.pending) parts.push(t('people.invitationSent'));
  if (row.inherited && row.via_id) {
    const name = folderName(row.via_id);
    parts.push(name ? t('people.inheritedFrom', { name }) : t('people.inheritedAbove'));
  }
  if (row.granted_by_name) parts.push(t('people.addedBy', { name: row.granted_by_name }));
  return parts.join(' · ');
}

/** A failure told as it is (several items, each with its reason). */
class Told extends Error {}

type Confirm = { kind: 'transfer'; row: AccessRow } | { kind: 'leave'; row: AccessRow } | null;

/**
 * People with access to items: who (name, email, role, who added them, inherited from which
 * folder, pending invitations), and for the owner: add people by email with a role (to every
 * given item), change a role, remove someone, make an Editor the owner. Anyone else sees the
 * list and may leave. The database checks every call (backend/SHARING.md).
 */
export function PeopleSection({
  entries,
  role,
  onDone,
}: {
  entries: Entry[];
  role: Role | null;
  onDone: () => void;
}) {
  const client = useDrive();
  const me = useUser()?.id;
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [email, setEmail] = useState('');
  const [newRole, setNewRole] = useState<'viewer' | 'editor'>('viewer');
  const [status, setStatus] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [confirm, setConfirm] = useState<Confirm>(null);
  const one = entries.length === 1 ? entries[0] : undefined;
  const owner = role === 'owner';
  const access = useBackendQuery<AccessRow[], DriveClient>(
    keys.access(one?.row.id ?? 'none'),
    (c) => listAccess(c, one?.kind ?? 'file', one?.row.id ?? '') as never,
    { enabled: Boolean(one) },
  );
  const folders = queryClient.getQueryData<FolderRow[]>(keys.allFolders) ?? [];
  const folderName = (id: string) => folders.find((f) => f.id === id)?.name;

  const refresh = () =>
    Promise.all(LIVE_KEYS.map((queryKey) => queryClient.invalidateQueries({ queryKey })));
  /** Runs a change; says what it did (or why not) in the live region. */
  const act = async (work: () => Promise<string>) => {
    setBusy(true);
    setError(null);
    try {
      setStatus(await work());
    } catch (e) {
      setStatus('');
      setError(e);
    } finally {
      setBusy(false);
      await refresh();
    }
  };

  const share = (e: FormEvent) => {
    e.preventDefault();
    const to = email.trim();
    void act(async () => {
      const failed: string[] = [];
      let pending = false;
      for (const entry of entries) {
        try {
          const rows = (await unwrap(shareWith(client, entry.kind, entry.row.id, to, newRole))) as
            | Array<{ pending: boolean }>
            | { pending: boolean };
          pending ||= (Array.isArray(rows) ? rows[0] : rows)?.pending === true;
        } catch (err) {
          if (entries.length === 1) throw err;
          failed.push(
            t('people.failedItem', { name: entry.row.name, reason: userErrorOf(err).message }),
          );
        }
      }
      const done = entries.length - failed.length;
      if (done > 0) notifyPeople(client);
      if (failed.length === entries.length) {
        throw new Told(t('people.notShared', { items: failed.join(t('people.failedSeparator')) }));
      }
      setEmail('');
      const values = { email: to, role: newRole, done, count: entries.length };
      const said = one
        ? t(pending ? 'people.invitedOne' : 'people.sharedOne', values)
        : failed.length
          ? t(pending ? 'people.invitedSome' : 'people.sharedSome', values)
          : t(pending ? 'people.invitedAll' : 'people.sharedAll', values);
      return failed.length
        ? t('people.partly', { said, items: failed.join(t('people.failedSeparator')) })
        : said;
    });
  };

  const transfer = (row: AccessRow) =>
    act(async () => {
      if (!one || !row.user_id) return '';
      await unwrap(transferOwnership(client, one.kind, one.row.id, row.user_id));
      notifyPeople(client);
      const who = row.display_name || row.email;
      showToast({ message: t('people.transferred', { name: one.row.name, who }) });
      onDone();
      return t('people.nowOwner', { who });
    });

  const leave = (row: AccessRow) =>
    act(async () => {
      if (!one || !row.grant_id) return '';
      await unwrap(unshare(client, row.grant_id));
      showToast({ message: t('people.left', { name: one.row.name }) });
      onDone();
      navigate('/shared');
      return t('people.noAccess');
    });

  const rows = access.data ?? [];
  return (
    <section aria-labelledby="people-heading" className="people-section">
      <h3 id="people-heading">{t('people.title')}</h3>
      {owner ? (
        <form className="share-form" onSubmit={share} noValidate>
          <Field
            label={t('people.email')}
            type="email"
            autoComplete="off"
            value={email}
            onChange={setEmail}
            invalid={Boolean(error)}
          />
          <FormField
            label={t('people.roleLabel')}
            control={(a) => (
              <select
                {...a}
                value={newRole}
                onChange={(e) => setNewRole(e.target.value as 'viewer' | 'editor')}
              >
                <option value="viewer">{t('people.viewerHint')}</option>
                <option value="editor">{t('people.editorHint')}</option>
              </select>
            )}
          />
          <button type="submit" className="primary" disabled={busy || !email.trim()}>
            {entries.length > 1 ? t('people.shareMany', { count: entries.length }) : t('cmd.share')}
          </button>
        </form>
      ) : null}
      <p role="status" className="share-status">
        {status}
      </p>
      <ErrorText
        error={error ?? access.error}
        message={error instanceof Told ? error.message : undefined}
      />
      {one && rows.length ? (
        <ul className="people" aria-label={t('people.list')}>
          {rows.map((row) => {
            const who = row.display_name || row.email;
            const mine = row.user_id === me;
            const direct = row.grant_id !== null && !row.inherited;
            return (
              <li key={row.grant_id ?? `owner-${row.user_id}`} data-email={row.email}>
                <span className="person">
                  <strong>{mine ? t('people.you', { name: who }) : who}</strong>
                  {row.display_name ? <span className="muted">{row.email}</span> : null}
                  <span className="muted">{origin(row, folderName)}</span>
                </span>
                {owner && direct && row.grant_id ? (
                  <select
                    aria-label={t('people.roleOf', { email: row.email })}
                    value={row.role}
                    disabled={busy}
                    onChange={(e) => {
                      const next = e.target.value as 'viewer' | 'editor';
                      const grant = row.grant_id as string;
                      void act(async () => {
                        await unwrap(setShareRole(client, grant, next));
                        return t('people.nowRole', { who, role: next });
                      });
                    }}
                  >
                    <option value="viewer">{t('people.role.viewer')}</option>
                    <option value="editor">{t('people.role.editor')}</option>
                  </select>
                ) : (
                  <span className="role">{t(ROLE_WORD[row.role])}</span>
                )}
                <span className="person-actions">
                  {owner && direct && row.role === 'editor' && !row.pending ? (
                    <button
                      type="button"
                      disabled={busy}
                      aria-label={t('people.makeOwnerOf', { email: row.email })}
                      onClick={() => setConfirm({ kind: 'transfer', row })}
                    >
                      {t('people.makeOwner')}
                    </button>
                  ) : null}
                  {owner && direct && row.grant_id ? (
                    <button
                      type="button"
                      disabled={busy}
                      aria-label={t('people.removeOf', { email: row.email })}
                      onClick={() => {
                        const grant = row.grant_id as string;
                        void act(async () => {
                          await unwrap(unshare(client, grant));
                          return t('people.removed', { who });
                        });
                      }}
                    >
                      {t('people.remove')}
                    </button>
                  ) : null}
                  {!owner && mine && direct ? (
                    <button
                      type="button"
                      disabled={busy}
                      onClick={() => setConfirm({ kind: 'leave', row })}
                    >
                      {t('people.leave')}
                    </button>
                  ) : null}
                </span>
              </li>
            );
          })}
        </ul>
      ) : null}
      {confirm?.kind === 'transfer' ? (
        <ConfirmDialog
          title={t('people.makeOwner')}
          message={t('people.makeOwnerConfirm', {
            who: confirm.row.display_name || confirm.row.email,
            name: one?.row.name,
          })}
          confirmLabel={t('people.makeOwner')}
          pending={busy}
          error={null}
          onConfirm={() => {
            const row = confirm.row;
            setConfirm(null);
            void transfer(row);
          }}
          onClose={() => setConfirm(null)}
        />
      ) : null}
      {confirm?.kind === 'leave' ? (
        <ConfirmDialog
          title={t('people.leave')}
          message={t('people.leaveConfirm', { name: one?.row.name })}
          confirmLabel={t('people.leave')}
          pending={busy}
          error={null}
          onConfirm={() => {
            const row = confirm.row;
            setConfirm(null);
            void leave(row);
          }}
          onClose={() => setConfirm(null)}
        />
      ) : null}
    </section>
  );
}
