import { useBackendQuery } from '@app/backend-react';
import { formatBytes, formatDate } from '../format';
import { type FileRow, signedUrl } from '../lib/api';
import type { DriveClient } from '../lib/client-types';
import { Dialog } from './Dialog';
import { ErrorText } from './ErrorText';
import { typeLabel } from './FileList';

const TEXT_LIMIT = 256 * 1024;

function kindOf(file: FileRow): 'image' | 'video' | 'audio' | 'pdf' | 'text' | 'other' {
  const m = file.mime_type || '';
  if (m.startsWith('image/')) return 'image';
  if (m.startsWith('video/')) return 'video';
  if (m.startsWith('audio/')) return 'audio';
  if (m === 'application/pdf') return 'pdf';
  if (m.startsWith('text/') || m === 'application/json') return 'text';
  return 'other';
}

function TextPreview({ url }: { url: string }) {
  const text = useBackendQuery<string>(['preview-text', url], async () => {
    try {
      const res = await fetch(url, { headers: { range: `bytes=0-${TEXT_LIMIT - 1}` } });
      if (!res.ok)
        return {
          data: null,
          error: Object.assign(new Error('Preview failed'), { status: res.status }),
        };
      return { data: await res.text(), error: null };
    } catch (error) {
      return { data: null, error };
    }
  });
  if (text.error) return <ErrorText error={text.error} />;
  return <pre className="text-preview">{text.data ?? 'Loading…'}</pre>;
}

/** Shows a file: images, video and audio (streamed), PDF, plain text; else icon and metadata. */
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
        {kind === 'image' && src ? <img src={src} alt={file.name} /> : null}
        {kind === 'video' && src ? (
          // biome-ignore lint/a11y/useMediaCaption: user files come without captions.
          <video src={src} controls preload="metadata" />
        ) : null}
        {kind === 'audio' && src ? (
          // biome-ignore lint/a11y/useMediaCaption: user files come without captions.
          <audio src={src} controls preload="metadata" />
        ) : null}
        {kind === 'pdf' && src ? <iframe src={src} title={`PDF ${file.name}`} /> : null}
        {kind === 'text' && src ? <TextPreview url={src} /> : null}
        {kind === 'other' ? <div className="big-icon" aria-hidden="true" /> : null}
      </div>
      <dl className="meta">
        <dt>Type</dt>
        <dd>
          {typeLabel(file)} ({file.mime_type})
        </dd>
        <dt>Size</dt>
        <dd>{formatBytes(Number(file.size))}</dd>
        <dt>Modified</dt>
        <dd>{formatDate(file.updated_at)}</dd>
      </dl>
      <div className="dialog-actions">
        <button type="button" className="primary" onClick={onDownload}>
          Download
        </button>
      </div>
    </Dialog>
  );
}
