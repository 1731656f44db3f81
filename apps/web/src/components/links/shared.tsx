/**
 * Pieces of the link pages: a file's preview through the link (its bytes fetched with the
 * visitor's session, shown from a blob URL — a view-only link gives no other URL), starting
 * a download, and the sentence of a refusal.
 */
import { useEffect, useState } from 'react';
import { t } from '../../i18n';
import { LinkError, type LinkVisitor } from '../../lib/links-api';
import { kindOf, MediaView } from '../media';

/** Files up to this size are previewed on a link's page (the bytes come whole). */
const PREVIEW_LIMIT = 100 * 1024 * 1024;

export interface PreviewedFile {
  id: string;
  name: string;
  size: number;
  mime_type: string;
}

/** The sentence for a failed call. */
export function messageOf(error: unknown): string {
  return error instanceof LinkError ? error.message : t('link.error.other');
}

/** Starts the browser's download of a signed URL (it answers as an attachment). */
export function startDownload(url: string, name: string): void {
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.rel = 'noopener';
  document.body.append(a);
  a.click();
  a.remove();
}

/** A file's preview through the link, or why there is none. */
export function LinkPreview({ file, visitor }: { file: PreviewedFile; visitor: LinkVisitor }) {
  const kind = kindOf(file);
  const shown = kind !== 'other' && file.size <= PREVIEW_LIMIT;
  const [src, setSrc] = useState<string | undefined>();
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (!shown) return;
    let url: string | undefined;
    let live = true;
    visitor.preview(file.id).then(
      (blob) => {
        if (!live) return;
        url = URL.createObjectURL(blob);
        setSrc(url);
      },
      (e: unknown) => live && setError(messageOf(e)),
    );
    return () => {
      live = false;
      if (url) URL.revokeObjectURL(url);
    };
  }, [file.id, shown, visitor]);
  return (
    <div className="preview">
      {error ? (
        <p className="error" role="alert">
          {error}
        </p>
      ) : null}
      {shown ? (
        <MediaView
          kind={kind}
          src={src}
          name={file.name}
          mimeType={file.mime_type}
          download={false}
        />
      ) : (
        <p className="hint">{kind === 'other' ? t('link.noPreview') : t('link.tooLarge')}</p>
      )}
    </div>
  );
}
