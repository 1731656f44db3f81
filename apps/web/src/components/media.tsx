/**
 * What a preview shows for a file's type — images, video and audio (streamed), PDF, plain
 * text — from a URL (a signed URL in the drive, a blob URL on a link's page). Shared by
 * `Preview` and the link pages.
 */
import { useBackendQuery } from '@app/backend-react';
import { ErrorText } from './ErrorText';

const TEXT_LIMIT = 256 * 1024;

export type MediaKind = 'image' | 'video' | 'audio' | 'pdf' | 'text' | 'other';

/** The kind of preview a MIME type gets. */
export function kindOf(file: { mime_type?: string | null }): MediaKind {
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

/** The file of `src` as its kind shows it; `other` kinds get a big icon. */
export function MediaView({ kind, src, name }: { kind: MediaKind; src?: string; name: string }) {
  return (
    <>
      {kind === 'image' && src ? <img src={src} alt={name} /> : null}
      {kind === 'video' && src ? (
        // biome-ignore lint/a11y/useMediaCaption: user files come without captions.
        <video src={src} controls preload="metadata" />
      ) : null}
      {kind === 'audio' && src ? (
        // biome-ignore lint/a11y/useMediaCaption: user files come without captions.
        <audio src={src} controls preload="metadata" />
      ) : null}
      {kind === 'pdf' && src ? <iframe src={src} title={`PDF ${name}`} /> : null}
      {kind === 'text' && src ? <TextPreview url={src} /> : null}
      {kind === 'other' ? <div className="big-icon" aria-hidden="true" /> : null}
    </>
  );
}
