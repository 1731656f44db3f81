import { useBackendMutation, useBackendQuery } from '@app/backend-react';
import { useState } from 'react';
import { formatDate } from '../format';
import {
  createShare,
  type FileRow,
  keys,
  listShares,
  revokeShare,
  type ShareRow,
} from '../lib/api';
import type { DriveClient } from '../lib/client-types';
import type { Role } from '../lib/roles';
import type { Entry } from '../lib/selection';
import { Dialog } from './Dialog';
import { ErrorText } from './ErrorText';
import { FormField } from './Form';
import { PeopleSection } from './PeopleSection';

const EXPIRY = [
  { hours: 1, label: '1 hour' },
  { hours: 24, label: '1 day' },
  { hours: 24 * 7, label: '7 days' },
] as const;

export function shareUrl(token: string): string {
  return `${window.location.origin}/s/${token}`;
}

function state(share: ShareRow): string {
  if (share.revoked_at) return 'Revoked';
  if (new Date(share.expires_at).getTime() <= Date.now()) return 'Expired';
  return `Expires ${formatDate(share.expires_at)}`;
}

/**
 * Sharing items: with people (everyone with access sees who has it; the owner manages it),
 * and, for the owner of one file, expiring links for anyone.
 */
export default function ShareDialog({
  entries,
  role,
  onClose,
}: {
  entries: Entry[];
  role: Role | null;
  onClose: () => void;
}) {
  const one = entries.length === 1 ? entries[0] : undefined;
  return (
    <Dialog
      title={one ? `Share “${one.row.name}”` : `Share ${entries.length} items`}
      onClose={onClose}
      wide
    >
      <PeopleSection entries={entries} role={role} onDone={onClose} />
      {one?.kind === 'file' && role === 'owner' ? <LinksSection file={one.row} /> : null}
    </Dialog>
  );
}

/** Creates expiring share links for a file, lists them, and revokes them. */
function LinksSection({ file }: { file: FileRow }) {
  const [hours, setHours] = useState<number>(24);
  const [copied, setCopied] = useState<string | null>(null);
  const shares = useBackendQuery<ShareRow[], DriveClient>(
    keys.shares(file.id),
    (c) => listShares(c, file.id) as never,
  );
  const create = useBackendMutation((h: number, c: DriveClient) => createShare(c, file.id, h), {
    invalidates: [keys.shares(file.id)],
  });
  const revoke = useBackendMutation((shareId: string, c: DriveClient) => revokeShare(c, shareId), {
    invalidates: [keys.shares(file.id)],
  });
  const created = create.data as ShareRow | undefined;
  const copy = async (token: string) => {
    try {
      await navigator.clipboard.writeText(shareUrl(token));
      setCopied(token);
    } catch {
      setCopied(null);
    }
  };
  return (
    <section aria-labelledby="links-heading">
      <h3 id="links-heading">Link for anyone</h3>
      <form
        className="share-form"
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate(hours);
        }}
      >
        <FormField
          label="Link expires after"
          control={({ id }) => (
            <select id={id} value={hours} onChange={(e) => setHours(Number(e.target.value))}>
              {EXPIRY.map((o) => (
                <option key={o.hours} value={o.hours}>
                  {o.label}
                </option>
              ))}
            </select>
          )}
        />
        <button type="submit" className="primary" disabled={create.isPending}>
          Create link
        </button>
      </form>
      <ErrorText error={create.error ?? revoke.error ?? shares.error} />
      {created ? (
        <div className="share-created">
          <label>
            <span>Anyone with this link can download the file</span>
            <input
              readOnly
              value={shareUrl(created.token)}
              aria-label="Share link"
              onFocus={(e) => e.target.select()}
            />
          </label>
          <button type="button" onClick={() => copy(created.token)}>
            {copied === created.token ? 'Copied' : 'Copy link'}
          </button>
        </div>
      ) : null}
      {shares.data && shares.data.length > 0 ? (
        <>
          <h4>Links</h4>
          <ul className="shares">
            {shares.data.map((s) => (
              <li key={s.id}>
                <span className="share-token" title={shareUrl(s.token)}>
                  …{s.token.slice(-8)}
                </span>
                <span>{state(s)}</span>
                <span>
                  {s.download_count} {s.download_count === 1 ? 'visit' : 'visits'}
                </span>
                {!s.revoked_at && new Date(s.expires_at).getTime() > Date.now() ? (
                  <button
                    type="button"
                    onClick={() => revoke.mutate(s.id)}
                    aria-label={`Revoke link ending ${s.token.slice(-8)}`}
                  >
                    Revoke
                  </button>
                ) : null}
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </section>
  );
}
