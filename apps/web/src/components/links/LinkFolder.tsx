import { useCallback, useEffect, useState } from 'react';
import { formatBytes, formatDate } from '../../format';
import { t } from '../../i18n';
import type {
  LinkEntry,
  LinkVisitor,
  LinkFolder as Listing,
  OpenedLink,
} from '../../lib/links-api';
import { Dialog } from '../Dialog';
import { validity } from './LinkFile';
import { LinkPreview, messageOf, startDownload } from './shared';

/**
 * A linked folder: the tree under it, one folder at a time (breadcrumbs back up to the
 * link's folder), each file previewed in a dialog and — unless the link is view-only —
 * downloaded alone, or the folder on screen as a zip.
 */
export default function LinkFolder({ link, visitor }: { link: OpenedLink; visitor: LinkVisitor }) {
  const [folder, setFolder] = useState<string | undefined>();
  const [listing, setListing] = useState<Listing | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [previewed, setPreviewed] = useState<LinkEntry | null>(null);
  const [busy, setBusy] = useState(false);
  const downloads = link.mode === 'download';

  useEffect(() => {
    let live = true;
    visitor.list(folder).then(
      (l) => {
        if (!live) return;
        setListing(l);
        setError(null);
      },
      (e: unknown) => live && setError(messageOf(e)),
    );
    return () => {
      live = false;
    };
  }, [folder, visitor]);

  const act = useCallback(async (work: () => Promise<void>) => {
    setBusy(true);
    try {
      await work();
      setError(null);
    } catch (e) {
      setError(messageOf(e));
    } finally {
      setBusy(false);
    }
  }, []);
  const download = (file: LinkEntry) =>
    act(async () => {
      const { url, name } = await visitor.download(file.id);
      startDownload(url, name);
    });
  const zip = () =>
    act(async () => {
      const { name, items } = await visitor.zip(listing?.folder.id);
      const { saveZip } = await import('../../lib/zip');
      await saveZip(items, name);
    });

  const here = listing?.folder.name ?? link.name;
  return (
    <>
      <h1>{here}</h1>
      <p className="hint">
        {validity(link)}
        {downloads ? '' : ` ${t('link.viewOnly')}`}
      </p>
      {listing && listing.path.length > 1 ? (
        <nav aria-label={t('link.folderPath')} className="crumbs">
          <ol>
            {listing.path.map((p, i) => (
              <li key={p.id}>
                {i < listing.path.length - 1 ? (
                  <button type="button" className="link" onClick={() => setFolder(p.id)}>
                    {p.name}
                  </button>
                ) : (
                  <span aria-current="page">{p.name}</span>
                )}
              </li>
            ))}
          </ol>
        </nav>
      ) : null}
      {error ? (
        <p className="error" role="alert">
          {error}
        </p>
      ) : null}
      {listing ? (
        <ul className="link-entries" aria-label={t('files.contents', { name: here })}>
          {listing.folders.map((f) => (
            <li key={f.id}>
              <button type="button" className="link" onClick={() => setFolder(f.id)}>
                <span aria-hidden="true">📁 </span>
                {f.name}
              </button>
              <span className="hint">{t('type.folder')}</span>
            </li>
          ))}
          {listing.files.map((f) => (
            <li key={f.id}>
              <button
                type="button"
                className="link"
                aria-label={t('link.previewName', { name: f.name })}
                onClick={() => setPreviewed(f)}
              >
                {f.name}
              </button>
              <span className="hint">{formatBytes(Number(f.size))}</span>
              {downloads ? (
                <button
                  type="button"
                  aria-label={t('link.downloadName', { name: f.name })}
                  disabled={busy}
                  onClick={() => void download(f)}
                >
                  {t('link.download')}
                </button>
              ) : null}
            </li>
          ))}
          {listing.folders.length + listing.files.length === 0 ? (
            <li className="hint">{t('files.empty')}</li>
          ) : null}
        </ul>
      ) : null}
      {downloads && listing ? (
        <button type="button" className="primary" disabled={busy} onClick={() => void zip()}>
          {t('link.zip', { name: here })}
        </button>
      ) : null}
      {previewed ? (
        <Dialog title={previewed.name} onClose={() => setPreviewed(null)} wide>
          <LinkPreview file={{ ...previewed, size: Number(previewed.size) }} visitor={visitor} />
          <p className="hint">
            {formatBytes(Number(previewed.size))} · {previewed.mime_type} ·{' '}
            {t('item.modified', { date: formatDate(previewed.updated_at) })}
          </p>
          {downloads ? (
            <div className="dialog-actions">
              <button
                type="button"
                className="primary"
                disabled={busy}
                onClick={() => void download(previewed)}
              >
                {t('link.download')}
              </button>
            </div>
          ) : null}
        </Dialog>
      ) : null}
    </>
  );
}
