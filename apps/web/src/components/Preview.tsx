import { useBackendQuery } from '@app/backend-react';
import { formatBytes, formatDate } from '../format';
import { t } from '../i18n';
import { type FileRow, signedUrl } from '../lib/api';
import type { DriveClient } from '../lib/client-types';
import { Dialog } from './Dialog';
import { ErrorText } from './ErrorText';
import { typeLabel } from './FileList';
import { kindOf, MediaView } from './media';

/**
 * Shows a file: images, SVG, video and audio (streamed), PDF pages, Markdown, code, CSV, plain
 * text (./media.tsx); else icon and metadata.
 */
export default function Preview({
  file,
  onClose,
  onDownload,
}: {
  file: FileRow;
  onClose: () => void;
  onDownload: () => void;
}) {
  const kind = kindOf(file);
  const url = useBackendQuery<{ signedUrl: string }, DriveClient>(
    ['preview-url', file.id],
    (c) => signedUrl(c, file, false),
    { enabled: kind !== 'other', staleTime: 5 * 60_000 },
  );
  const src = url.data?.signedUrl;
  return (
    <Dialog title={file.name} onClose={onClose} wide>
      <div className="preview">
        <ErrorText error={url.error} />
        <MediaView kind={kind} src={src} name={file.name} mimeType={file.mime_type} />
      </div>
      <dl className="meta">
        <dt>{t('col.type')}</dt>
        <dd>{t('preview.type', { type: typeLabel(file), mime: file.mime_type })}</dd>
        <dt>{t('col.size')}</dt>
        <dd>{formatBytes(Number(file.size))}</dd>
        <dt>{t('col.modified')}</dt>
        <dd>{formatDate(file.updated_at)}</dd>
      </dl>
      <div className="dialog-actions">
        <button type="button" className="primary" onClick={onDownload}>
          {t('cmd.download')}
        </button>
      </div>
    </Dialog>
  );
}
