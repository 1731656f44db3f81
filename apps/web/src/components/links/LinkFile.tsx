import { useState } from 'react';
import { formatBytes, formatDate } from '../../format';
import { t } from '../../i18n';
import type { LinkVisitor, OpenedLink } from '../../lib/links-api';
import { LinkPreview, messageOf, startDownload } from './shared';

/** Until when a link works, in a sentence. */
export function validity(link: OpenedLink): string {
  return link.expiresAt
    ? t('link.validUntil', { date: formatDate(link.expiresAt) })
    : t('link.noExpiry');
}

/** A linked file: its preview and, unless the link is view-only, its download. */
export default function LinkFile({ link, visitor }: { link: OpenedLink; visitor: LinkVisitor }) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const file = {
    id: link.id,
    name: link.name,
    size: Number(link.size ?? 0),
    mime_type: link.mimeType ?? 'application/octet-stream',
  };
  const download = async () => {
    setBusy(true);
    try {
      const { url, name } = await visitor.download(file.id);
      startDownload(url, name);
      setError(null);
    } catch (e) {
      setError(messageOf(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <h1>{file.name}</h1>
      <p>
        {formatBytes(file.size)} · {file.mime_type}
      </p>
      <LinkPreview file={file} visitor={visitor} />
      <p className="hint">
        {validity(link)}
        {link.mode === 'view' ? ` ${t('link.viewOnly')}` : ''}
      </p>
      {error ? (
        <p className="error" role="alert">
          {error}
        </p>
      ) : null}
      {link.mode === 'download' ? (
        <button type="button" className="primary" disabled={busy} onClick={() => void download()}>
          {t('link.download')}
        </button>
      ) : null}
    </>
  );
}
