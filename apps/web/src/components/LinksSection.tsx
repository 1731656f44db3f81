import { useBackendMutation, useBackendQuery } from '@app/backend-react';
import { useState } from 'react';
import { formatDate } from '../format';
import { revokeShare } from '../lib/api';
import type { DriveClient } from '../lib/client-types';
import {
  createLink,
  type LinkMode,
  type LinkRow,
  linkKeys,
  listLinks,
  type NewLink,
} from '../lib/links-api';
import type { Entry } from '../lib/selection';
import { ErrorText } from './ErrorText';
import { Field, FormField } from './Form';

const EXPIRY = [
  { value: '1 hour', label: '1 hour' },
  { value: '1 day', label: '1 day' },
  { value: '7 days', label: '7 days' },
  { value: '30 days', label: '30 days' },
  { value: 'never', label: 'Never' },
] as const;

const MODES: { mode: LinkMode; label: string; folderOnly?: boolean }[] = [
  { mode: 'download', label: 'View and download' },
  { mode: 'view', label: 'View only' },
  { mode: 'upload', label: 'Upload only (file request)', folderOnly: true },
];

const SAYS: Record<LinkMode, string> = {
  download: 'Anyone with this link can view and download',
  view: 'Anyone with this link can view, not download',
  upload: 'Anyone with this link can upload files here, and see nothing',
};

export function shareUrl(token: string): string {
  return `${window.location.origin}/s/${token}`;
}

function state(link: LinkRow): string {
  if (link.revoked_at) return 'Revoked';
  if (link.expires_at && new Date(link.expires_at).getTime() <= Date.now()) return 'Expired';
  if (link.max_downloads !== null && link.download_count >= link.max_downloads) return 'Used up';
  return link.expires_at ? `Expires ${formatDate(link.expires_at)}` : 'Never expires';
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

function counts(link: LinkRow): string {
  const visits = plural(link.visit_count, 'visit');
  if (link.mode === 'upload') return `${visits} · ${plural(link.upload_count, 'upload')}`;
  const limit = link.max_downloads === null ? '' : ` of ${link.max_downloads}`;
  return `${visits} · ${plural(link.download_count, 'download')}${limit}`;
}

/**
 * Links for anyone to one file or folder of the owner: what the link allows, its expiry (an
 * hour to never), an optional password and download limit (or, for a file request, a size
 * cap); every link with its visits and downloads, revocable.
 */
export function LinksSection({ entry }: { entry: Entry }) {
  const kind = entry.kind;
  const itemId = entry.row.id;
  const [mode, setMode] = useState<LinkMode>('download');
  const [expiry, setExpiry] = useState<string>('1 day');
  const [password, setPassword] = useState('');
  const [limit, setLimit] = useState('');
  const [copied, setCopied] = useState<string | null>(null);
  const links = useBackendQuery<LinkRow[], DriveClient>(
    linkKeys.links(itemId),
    (c) => listLinks(c, kind, itemId) as never,
  );
  const create = useBackendMutation(
    (link: NewLink, c: DriveClient) => createLink(c, kind, itemId, link),
    {
      invalidates: [linkKeys.links(itemId)],
      // The next link starts without this one's password and limit.
      onSuccess: () => {
        setPassword('');
        setLimit('');
      },
    },
  );
  const revoke = useBackendMutation((id: string, c: DriveClient) => revokeShare(c, id), {
    invalidates: [linkKeys.links(itemId)],
  });
  const created = create.data as LinkRow | undefined;
  const n = Number(limit);
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
          create.mutate({
            mode,
            expiresIn: expiry === 'never' ? null : expiry,
            password: password || null,
            maxDownloads: mode !== 'upload' && limit ? n : null,
            maxUploadBytes: mode === 'upload' && limit ? Math.round(n * 1024 * 1024) : null,
          });
        }}
      >
        <FormField
          label="Anyone with the link can"
          control={(a) => (
            <select {...a} value={mode} onChange={(e) => setMode(e.target.value as LinkMode)}>
              {MODES.filter((m) => kind === 'folder' || !m.folderOnly).map((m) => (
                <option key={m.mode} value={m.mode}>
                  {m.label}
                </option>
              ))}
            </select>
          )}
        />
        <FormField
          label="Link expires after"
          control={(a) => (
            <select {...a} value={expiry} onChange={(e) => setExpiry(e.target.value)}>
              {EXPIRY.map((o) => (
                <option key={o.value} value={o.value}>
                  {o.label}
                </option>
              ))}
            </select>
          )}
        />
        <Field
          label="Password (optional)"
          type="password"
          autoComplete="new-password"
          minLength={4}
          value={password}
          onChange={setPassword}
        />
        <Field
          label={mode === 'upload' ? 'Size limit in MB (optional)' : 'Download limit (optional)'}
          type="number"
          min={1}
          step={mode === 'upload' ? 'any' : 1}
          value={limit}
          onChange={setLimit}
        />
        <button type="submit" className="primary" disabled={create.isPending}>
          Create link
        </button>
      </form>
      <ErrorText error={create.error ?? revoke.error ?? links.error} />
      {created ? (
        <div className="share-created">
          <label>
            <span>{SAYS[created.mode]}</span>
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
      {links.data && links.data.length > 0 ? (
        <>
          <h4>Links</h4>
          <ul className="shares">
            {links.data.map((s) => (
              <li key={s.id} className="link-row">
                <span className="share-token" title={shareUrl(s.token)}>
                  …{s.token.slice(-8)}
                </span>
                <span>
                  {MODES.find((m) => m.mode === s.mode)?.label}
                  {s.has_password ? ' · Password' : ''} · {state(s)}
                </span>
                <span className="share-counts">{counts(s)}</span>
                {state(s).startsWith('Expires') || state(s) === 'Never expires' ? (
                  <button
                    type="button"
                    onClick={() => revoke.mutate(s.id)}
                    aria-label={`Revoke link ending ${s.token.slice(-8)}`}
                  >
                    Revoke
                  </button>
                ) : (
                  <span />
                )}
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </section>
  );
}
