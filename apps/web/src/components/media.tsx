/**
 * What a preview shows for a file's type — images, SVG (sanitised), video (with a poster
 * frame) and audio (streamed), PDF pages, Markdown rendered, code highlighted, CSV as a
 * table, plain text — from a URL (a signed URL in the drive, a blob URL on a link's page).
 * Shared by `Preview` and the link pages. Each richer viewer is a lazy chunk of its own
 * (./previews/), loaded when a file of its kind is opened.
 */
import { lazy, Suspense } from 'react';
import { t } from '../i18n';
import { ErrorText } from './ErrorText';
import { Cut, TEXT_LIMIT } from './previews/Cut';
import { isCsv, isMarkdown, languageOf } from './previews/languages';
import { useTextStart } from './previews/use-text';

const MarkdownView = lazy(() => import('./previews/MarkdownView'));
const CodeView = lazy(() => import('./previews/CodeView'));
const CsvView = lazy(() => import('./previews/CsvView'));
const SvgView = lazy(() => import('./previews/SvgView'));
const PdfView = lazy(() => import('./previews/PdfView'));
const VideoView = lazy(() => import('./previews/VideoView'));

export type MediaKind =
  | 'image'
  | 'svg'
  | 'video'
  | 'audio'
  | 'pdf'
  | 'markdown'
  | 'csv'
  | 'code'
  | 'text'
  | 'other';

/** The kind of preview a file gets, by its MIME type (and its name's extension). */
export function kindOf(file: { mime_type?: string | null; name?: string }): MediaKind {
  const m = file.mime_type || '';
  const name = file.name ?? '';
  if (m === 'image/svg+xml') return 'svg';
  if (m.startsWith('image/')) return 'image';
  if (isMarkdown(name, m)) return 'markdown';
  if (isCsv(name, m)) return 'csv';
  if (languageOf(name, m)) return 'code';
  if (m.startsWith('video/')) return 'video';
  if (m.startsWith('audio/')) return 'audio';
  if (m === 'application/pdf') return 'pdf';
  if (m.startsWith('text/')) return 'text';
  return 'other';
}

function TextPreview({ url }: { url: string }) {
  const text = useTextStart(url, TEXT_LIMIT);
  if (text.error) return <ErrorText error={text.error} />;
  return (
    <div className="doc-preview">
      <pre className="text-preview">{text.data?.text ?? t('row.loading')}</pre>
      {text.data && !text.data.whole ? <Cut /> : null}
    </div>
  );
}

/**
 * The file of `src` as its kind shows it; `other` kinds get a big icon. `download: false`
 * (a link's page) hides the players' own download item.
 */
export function MediaView({
  kind,
  src,
  name,
  mimeType = '',
  download = true,
}: {
  kind: MediaKind;
  src?: string;
  name: string;
  mimeType?: string;
  download?: boolean;
}) {
  if (kind === 'other') return <div className="big-icon" aria-hidden="true" />;
  if (!src) return null;
  return (
    <Suspense fallback={<p className="hint">{t('preview.loading')}</p>}>
      {kind === 'image' ? <img src={src} alt={name} /> : null}
      {kind === 'svg' ? <SvgView url={src} name={name} /> : null}
      {kind === 'video' ? <VideoView url={src} download={download} /> : null}
      {kind === 'audio' ? (
        // biome-ignore lint/a11y/useMediaCaption: user files come without captions.
        <audio
          src={src}
          controls
          preload="metadata"
          controlsList={download ? undefined : 'nodownload'}
        />
      ) : null}
      {kind === 'pdf' ? <PdfView url={src} name={name} /> : null}
      {kind === 'markdown' ? <MarkdownView url={src} name={name} /> : null}
      {kind === 'csv' ? <CsvView url={src} name={name} /> : null}
      {kind === 'code' ? (
        <CodeView url={src} name={name} language={languageOf(name, mimeType) ?? 'plaintext'} />
      ) : null}
      {kind === 'text' ? <TextPreview url={src} /> : null}
    </Suspense>
  );
}
