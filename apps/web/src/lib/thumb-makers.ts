/**
 * Making a thumbnail in the browser from a file's signed URL: a PDF's first page, a video's
 * first frame, a sanitised SVG. Loaded (with pdf.js and DOMPurify) only when a thumbnail is
 * first made.
 */
import { closePdf, openPdf, pdfPage, videoFrame } from './frames';
import { sanitizeSvg } from './sanitize';

export type MadeKind = 'pdf' | 'video' | 'svg';

async function bytes(url: string): Promise<ArrayBuffer> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`Download failed (${res.status})`);
  return res.arrayBuffer();
}

/** A picture `px` pixels wide of the file at `url`. */
export async function makePicture(kind: MadeKind, url: string, px: number): Promise<Blob> {
  if (kind === 'video') return videoFrame(url, px);
  if (kind === 'svg') return sanitizeSvg(new TextDecoder().decode(await bytes(url)));
  const doc = await openPdf(await bytes(url));
  try {
    return await pdfPage(doc, 1, px);
  } finally {
    closePdf(doc);
  }
}
