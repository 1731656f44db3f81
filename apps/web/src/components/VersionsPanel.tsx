import { useBackendMutation, useBackendQuery, useUser } from '@app/backend-react';
import { lazy, Suspense, useState } from 'react';
import { formatBytes, formatDate, formatNumber } from '../format';
import { t } from '../i18n';
import { type FileRow, LIVE_KEYS } from '../lib/api';
import type { DriveClient } from '../lib/client-types';
import { canEdit, type Role } from '../lib/roles';
import { showToast } from '../lib/toasts';
import {
  deleteVersion,
  listVersions,
  restoreVersion,
  type VersionRow,
  versionFile,
  versionsKey,
} from '../lib/versions-api';
import { timeAgo } from './ActivityPanel';
import { Dialog } from './Dialog';
import { ErrorText } from './ErrorText';

const Preview = lazy(() => import('./Preview'));

/**
 * The versions of a file, newest first (size, who uploaded it, when; the current one marked):
 * preview or download any of them; the owner and Editors restore one (as a new version) and
 * delete an older one. Refreshed live while open (`versions` is one of the live keys).
 */
export default function VersionsPanel(props: {
  file: FileRow;
  role: Role | null;
  onClose: () => void;
  onDownload: (file: FileRow) => void;
}) {
  const { file } = props;
  const user = useUser();
  const [previewed, setPreviewed] = useState<FileRow | null>(null);
  const versions = useBackendQuery<VersionRow[], DriveClient>(
    versionsKey(file.id),
    (c) => listVersions(c, file.id) as never,
  );
  const invalidates = [versionsKey(file.id), ...LIVE_KEYS, ['activity']];
  const restore = useBackendMutation((v: VersionRow, c: DriveClient) => restoreVersion(c, v.id), {
    invalidates,
    onSuccess: () => showToast({ message: t('versions.restored', { name: file.name }) }),
  });
  const remove = useBackendMutation((v: VersionRow, c: DriveClient) => deleteVersion(c, v.id), {
    invalidates,
    onSuccess: () => showToast({ message: t('versions.deleted') }),
  });
  const editable = canEdit(props.role);
  const rows = versions.data ?? [];
  const now = Date.now();
  const busy = restore.isPending || remove.isPending;

  return (
    <Dialog title={t('versions.title', { name: file.name })} onClose={props.onClose} wide>
      <ErrorText error={versions.error ?? restore.error ?? remove.error} />
      {versions.isPending ? (
        <p role="status">{t('row.loading')}</p>
      ) : (
        <ol className="versions" aria-label={t('versions.list')}>
          {rows.map((v, i) => {
            const n = formatNumber(rows.length - i);
            const [before, after] = t('versions.meta', {
              size: formatBytes(Number(v.size)),
              how: v.restored_from ? 'restored' : 'uploaded',
              by:
                v.uploaded_by && v.uploaded_by === user?.id
                  ? 'me'
                  : v.uploader_name
                    ? 'other'
                    : 'someone',
              name: v.uploader_name ?? '',
              when: '\u0000',
            }).split('\u0000');
            return (
              <li key={v.id} aria-current={v.is_current ? 'true' : undefined}>
                <div className="version-text">
                  <strong>
                    {v.is_current ? t('versions.current', { n }) : t('versions.version', { n })}
                  </strong>{' '}
                  <span>
                    {before}
                    <time dateTime={v.created_at} title={formatDate(v.created_at)}>
                      {timeAgo(v.created_at, now)}
                    </time>
                    {after}
                  </span>
                </div>
                <div className="version-actions">
                  <button
                    type="button"
                    aria-label={t('versions.previewOne', { n })}
                    onClick={() => setPreviewed(versionFile(file, v))}
                  >
                    {t('versions.preview')}
                  </button>
                  <button
                    type="button"
                    aria-label={t('versions.downloadOne', { n })}
                    onClick={() => props.onDownload(versionFile(file, v))}
                  >
                    {t('versions.download')}
                  </button>
                  {editable && !v.is_current ? (
                    <>
                      <button
                        type="button"
                        aria-label={t('versions.restoreOne', { n })}
                        disabled={busy}
                        onClick={() => restore.mutate(v)}
                      >
                        {t('versions.restore')}
                      </button>
                      <button
                        type="button"
                        className="danger"
                        aria-label={t('versions.deleteOne', { n })}
                        disabled={busy}
                        onClick={() => remove.mutate(v)}
                      >
                        {t('versions.delete')}
                      </button>
                    </>
                  ) : null}
                </div>
              </li>
            );
          })}
        </ol>
      )}
      <div className="dialog-actions">
        <button type="button" className="primary" onClick={props.onClose}>
          {t('dialog.close')}
        </button>
      </div>
      {previewed ? (
        <Suspense fallback={null}>
          <Preview
            file={previewed}
            onClose={() => setPreviewed(null)}
            onDownload={() => props.onDownload(previewed)}
          />
        </Suspense>
      ) : null}
    </Dialog>
  );
}
