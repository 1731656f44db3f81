import { unwrap, useBackendQuery, useQueryClient, useUser } from '@app/backend-react';
import { type FormEvent, useState } from 'react';
import { useNavigate } from 'react-router';
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

const ROLE_WORD: Record<AccessRow['role'], string> = {
  owner: 'Owner',
  editor: 'Editor',
  viewer: 'Viewer',
};

/** "Added by Ada" / "Invitation sent" / "From the folder “Team”, added by Ada". */
function origin(row: AccessRow, folderName: (id: string) => string | undefined): string {
  if (row.role === 'owner') return '';
  const parts: string[] = [];
  if (row.pending) parts.push('Invitation sent');
  if (row.inherited && row.via_id) {
    const name = folderName(row.via_id);
    parts.push(name ? `Inherited from “${name}”` : 'Inherited from a folder above');
  }
  if (row.granted_by_name) parts.push(`Added by ${row.granted_by_name}`);
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
          failed.push(`“${entry.row.name}” (${userErrorOf(err).message})`);
        }
      }
      const done = entries.length - failed.length;
      if (done > 0) notifyPeople(client);
      if (failed.length === entries.length) {
        throw new Told(`Not shared: ${failed.join('; ')}.`);
      }
      setEmail('');
      const what = one
        ? ''
        : failed.length
          ? ` ${done} of ${entries.length} items`
          : ` ${done} items`;
      const said = pending
        ? `Invitation sent to ${to}${what ? ` for${what}` : ''}.`
        : `Shared${what} with ${to} as ${ROLE_WORD[newRole]}.`;
      return failed.length ? `${said} Not shared: ${failed.join('; ')}.` : said;
    });
  };

  const transfer = (row: AccessRow) =>
    act(async () => {
      if (!one || !row.user_id) return '';
      await unwrap(transferOwnership(client, one.kind, one.row.id, row.user_id));
      notifyPeople(client);
      const who = row.display_name || row.email;
      showToast({ message: `“${one.row.name}” now belongs to ${who}. You are an Editor of it.` });
      onDone();
      return `${who} is now the owner.`;
    });

  const leave = (row: AccessRow) =>
    act(async () => {
      if (!one || !row.grant_id) return '';
      await unwrap(unshare(client, row.grant_id));
      showToast({ message: `You left “${one.row.name}”.` });
      onDone();
      navigate('/shared');
      return 'You no longer have access.';
    });

  const rows = access.data ?? [];
  return (
    <section aria-labelledby="people-heading" className="people-section">
      <h3 id="people-heading">People</h3>
      {owner ? (
        <form className="share-form" onSubmit={share} noValidate>
          <Field
            label="Email address"
            type="email"
            autoComplete="off"
            value={email}
            onChange={setEmail}
            invalid={Boolean(error)}
          />
          <FormField
            label="Role"
            control={(a) => (
              <select
                {...a}
                value={newRole}
                onChange={(e) => setNewRole(e.target.value as 'viewer' | 'editor')}
              >
                <option value="viewer">Viewer (can see and download)</option>
                <option value="editor">Editor (can also add, rename, move, delete)</option>
              </select>
            )}
          />
          <button type="submit" className="primary" disabled={busy || !email.trim()}>
            {entries.length > 1 ? `Share ${entries.length} items` : 'Share'}
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
        <ul className="people" aria-label="People with access">
          {rows.map((row) => {
            const who = row.display_name || row.email;
            const mine = row.user_id === me;
            const direct = row.grant_id !== null && !row.inherited;
            return (
              <li key={row.grant_id ?? `owner-${row.user_id}`} data-email={row.email}>
                <span className="person">
                  <strong>
                    {who}
                    {mine ? ' (you)' : ''}
                  </strong>
                  {row.display_name ? <span className="muted">{row.email}</span> : null}
                  <span className="muted">{origin(row, folderName)}</span>
                </span>
                {owner && direct && row.grant_id ? (
                  <select
                    aria-label={`Role of ${row.email}`}
                    value={row.role}
                    disabled={busy}
                    onChange={(e) => {
                      const next = e.target.value as 'viewer' | 'editor';
                      const grant = row.grant_id as string;
                      void act(async () => {
                        await unwrap(setShareRole(client, grant, next));
                        return `${who} is now ${ROLE_WORD[next] === 'Editor' ? 'an' : 'a'} ${ROLE_WORD[next]}.`;
                      });
                    }}
                  >
                    <option value="viewer">Viewer</option>
                    <option value="editor">Editor</option>
                  </select>
                ) : (
                  <span className="role">{ROLE_WORD[row.role]}</span>
                )}
                <span className="person-actions">
                  {owner && direct && row.role === 'editor' && !row.pending ? (
                    <button
                      type="button"
                      disabled={busy}
                      aria-label={`Make owner: ${row.email}`}
                      onClick={() => setConfirm({ kind: 'transfer', row })}
                    >
                      Make owner
                    </button>
                  ) : null}
                  {owner && direct && row.grant_id ? (
                    <button
                      type="button"
                      disabled={busy}
                      aria-label={`Remove ${row.email}`}
                      onClick={() => {
                        const grant = row.grant_id as string;
                        void act(async () => {
                          await unwrap(unshare(client, grant));
                          return `Removed ${who}.`;
                        });
                      }}
                    >
                      Remove
                    </button>
                  ) : null}
                  {!owner && mine && direct ? (
                    <button
                      type="button"
                      disabled={busy}
                      onClick={() => setConfirm({ kind: 'leave', row })}
                    >
                      Leave
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
          title="Make owner"
          message={`Make ${confirm.row.display_name || confirm.row.email} the owner of “${one?.row.name}”? It moves to their My files and uses their storage. You stay an Editor: you can still open and change it, but only they can share it, change who has access, or delete it forever.`}
          confirmLabel="Make owner"
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
          title="Leave"
          message={`Leave “${one?.row.name}”? You will no longer see it, unless its owner shares it with you again.`}
          confirmLabel="Leave"
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
