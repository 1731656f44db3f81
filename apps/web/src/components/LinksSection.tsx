import { useBackendMutation, useBackendQuery } from '@app/backend-react';
import { useState } from 'react';
import { formatDate, formatNumber } from '../format';
import { t } from '../i18n';
import type { MessageKey } from '../i18n/messages/en';
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
  { value: '1 hour', label: () => t('links.hours', { count: 1 }) },
  { value: '1 day', label: () => t('links.days', { count: 1 }) },
  { value: '7 days', label: () => t('links.days', { count: 7 }) },
  { value: '30 days', label: () => t('links.days', { count: 30 }) },
  { value: 'never', label: () => t('links.never') },
] as const;

const MODES: { mode: LinkMode; label: MessageKey; folderOnly?: boolean }[] = [
  { mode: 'download', label: 'links.mode.download' },
  { mode: 'view', label: 'links.mode.view' },
  { mode: 'upload', label: 'links.mode.upload', folderOnly: true },
];

const SAYS: Record<LinkMode, MessageKey> = {
  download: 'links.says.download',
  view: 'links.says.view',
  upload: 'links.says.upload',
};

export function shareUrl(token: string): string {
  return `${window.location.origin}/s/${token}`;
}

/** Whether a link still works (it can be revoked then), and its state in words. */
function state(link: LinkRow): { live: boolean; text: string } {
  if (link.revoked_at) return { live: false, text: t('links.revoked') };
  if (link.expires_at && new Date(link.expires_at).getTime() <= Date.now()) {
    return { live: false, text: t('links.expired') };
  }
  if (link.max_downloads !== null && link.download_count >= link.max_downloads) {
    return { live: false, text: t('links.usedUp') };
  }
  return {
    live: true,
    text: link.expires_at
      ? t('links.expires', { date: formatDate(link.expires_at) })
      : t('links.neverExpires'),
  };
}

function counts(link: LinkRow): string {
  const visits = t('links.visits', { count: link.visit_count });
  if (link.mode === 'upload') {
    return `${visits} · ${t('links.uploads', { count: link.upload_count })}`;
  }
  const downloads =
    link.max_downloads === null
      ? t('links.downloads', { count: link.download_count })
      : t('links.downloadsOf', {
          count: link.download_count,
          max: formatNumber(link.max_downloads),
        });
  return `${visits} · ${downloads}`;
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
      <h3 id="links-heading">{t('links.heading')}</h3>
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
          label={t('links.can')}
          control={(a) => (
            <select {...a} value={mode} onChange={(e) => setMode(e.target.value as LinkMode)}>
              {MODES.filter((m) => kind === 'folder' || !m.folderOnly).map((m) => (
                <option key={m.mode} value={m.mode}>
                  {t(m.label)}
                </option>
              ))}
            </select>
          )}
        />
        <FormField
          label={t('links.expiresAfter')}
          control={(a) => (
            <select {...a} value={expiry} onChange={(e) => setExpiry(e.target.value)}>
              {EXPIRY.map((o) => (
                <option key={o.value} value={o.value}>
                  {o.label()}
                </option>
              ))}
            </select>
          )}
        />
        <Field
          label={t('links.password')}
          type="password"
          autoComplete="new-password"
          minLength={4}
          value={password}
          onChange={setPassword}
        />
        <Field
          label={mode === 'upload' ? t('links.sizeLimit') : t('links.downloadLimit')}
          type="number"
          min={1}
          step={mode === 'upload' ? 'any' : 1}
          value={limit}
          onChange={setLimit}
        />
        <button type="submit" className="primary" disabled={create.isPending}>
          {t('links.create')}
        </button>
      </form>
      <ErrorText error={create.error ?? revoke.error ?? links.error} />
      {created ? (
        <div className="share-created">
          <label>
            <span>{t(SAYS[created.mode])}</span>
            <input
              readOnly
              value={shareUrl(created.token)}
              aria-label={t('links.shareLink')}
              onFocus={(e) => e.target.select()}
            />
          </label>
          <button type="button" onClick={() => copy(created.token)}>
            {copied === created.token ? t('links.copied') : t('links.copy')}
          </button>
        </div>
      ) : null}
      {links.data && links.data.length > 0 ? (
        <>
          <h4>{t('links.list')}</h4>
          <ul className="shares">
            {links.data.map((s) => (
              <li key={s.id} className="link-row">
                <span className="share-token" title={shareUrl(s.token)}>
                  …{s.token.slice(-8)}
                </span>
                <span>
                  {t(MODES.find((m) => m.mode === s.mode)?.label ?? 'links.mode.download')}
                  {s.has_password ? ` · ${t('links.hasPassword')}` : ''} · {state(s).text}
                </span>
                <span className="share-counts">{counts(s)}</span>
                {state(s).live ? (
                  <button
                    type="button"
                    onClick={() => revoke.mutate(s.id)}
                    aria-label={t('links.revokeName', { end: s.token.slice(-8) })}
                  >
                    {t('links.revoke')}
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
