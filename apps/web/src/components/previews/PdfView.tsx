/**
 * A PDF drawn page by page as pictures (pdf.js through ../../lib/frames, in this lazy chunk
 * only): the first page at once, the others on asking, up to `MAX_PAGES`. No browser PDF
 * viewer is embedded, so a view-only link's page offers no download through it.
 */
import { useEffect, useRef, useState } from 'react';
import { formatNumber } from '../../format';
import { t } from '../../i18n';
import { closePdf, openPdf, type PdfDocument, pdfPage } from '../../lib/frames';

const PDF_LIMIT = 100 * 1024 * 1024;
const MAX_PAGES = 50;
const WIDTH = 1200;

interface Opened {
  doc: PdfDocument;
  pages: string[];
}

async function open(url: string): Promise<PdfDocument> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`The PDF did not load (${res.status})`);
  if (Number(res.headers.get('content-length') ?? 0) > PDF_LIMIT) throw new Error('Too large');
  return openPdf(await res.arrayBuffer());
}

/** A blob URL of `blob`, noted in `made` to be let go. */
function keep(made: string[], blob: Blob): string {
  const src = URL.createObjectURL(blob);
  made.push(src);
  return src;
}

export default function PdfView({ url, name }: { url: string; name: string }) {
  const [opened, setOpened] = useState<Opened | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [wanted, setWanted] = useState(1);
  // Every page URL made, let go when the file changes or the preview closes.
  const made = useRef<string[]>([]);
  useEffect(() => {
    let live = true;
    let doc: PdfDocument | null = null;
    setOpened(null);
    setError(null);
    open(url)
      .then(async (d) => {
        doc = d;
        const first = keep(made.current, await pdfPage(d, 1, WIDTH));
        if (live) setOpened({ doc: d, pages: [first] });
      })
      .catch(() => live && setError(t('preview.pdfFailed')));
    return () => {
      live = false;
      for (const src of made.current.splice(0)) URL.revokeObjectURL(src);
      if (doc) closePdf(doc);
    };
  }, [url]);
  useEffect(() => {
    if (!opened || opened.pages.length >= wanted) return;
    let live = true;
    const next = opened.pages.length + 1;
    void pdfPage(opened.doc, next, WIDTH).then(
      (blob) =>
        live && setOpened({ ...opened, pages: [...opened.pages, keep(made.current, blob)] }),
      () => live && setError(t('preview.pageFailed', { page: formatNumber(next) })),
    );
    return () => {
      live = false;
    };
  }, [opened, wanted]);
  if (error) return <p className="hint">{error}</p>;
  if (!opened) return <p className="hint">{t('row.loading')}</p>;
  const total = opened.doc.numPages;
  const limit = Math.min(total, MAX_PAGES);
  return (
    <section
      className="doc-preview pdf-preview"
      // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region is reached by keyboard.
      tabIndex={0}
      aria-label={t('preview.pages', { name })}
    >
      {opened.pages.map((src, i) => (
        <img
          key={src}
          src={src}
          alt={t('preview.page', {
            page: formatNumber(i + 1),
            total: formatNumber(total),
            name,
          })}
          className="pdf-page"
        />
      ))}
      {wanted < limit ? (
        <button type="button" onClick={() => setWanted(limit)}>
          {limit === total
            ? t('preview.showAll', { count: total, n: formatNumber(total) })
            : t('preview.showFirst', {
                count: total,
                n: formatNumber(total),
                limit: formatNumber(limit),
              })}
        </button>
      ) : opened.pages.length < wanted ? (
        <p className="hint">
          {t('preview.drawing', { page: formatNumber(opened.pages.length + 1) })}
        </p>
      ) : null}
    </section>
  );
}
