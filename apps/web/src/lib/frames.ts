/**
 * Pictures made in the browser from a file's bytes: a PDF's pages (pdf.js through unpdf,
 * loaded only here) and a video's first frame. Used by the previews and the thumbnails.
 */
import { getDocumentProxy, renderPageAsImage } from 'unpdf';

export type PdfDocument = Awaited<ReturnType<typeof getDocumentProxy>>;

/** Opens a PDF from its bytes. */
export function openPdf(bytes: ArrayBuffer): Promise<PdfDocument> {
  return getDocumentProxy(new Uint8Array(bytes));
}

/** Lets go of an open PDF (pdf.js's memory for it). */
export function closePdf(doc: PdfDocument): void {
  void (doc as unknown as { destroy?: () => Promise<void> }).destroy?.();
}

/** One page (from 1) of an open PDF as a PNG `width` pixels wide. */
export async function pdfPage(doc: PdfDocument, page: number, width: number): Promise<Blob> {
  const png = await renderPageAsImage(doc, page, { width });
  return new Blob([png], { type: 'image/png' });
}

/**
 * The first frame of a video as a JPEG at most `width` pixels wide. The video is read with
 * CORS (`crossOrigin`), so its frame may be drawn; a frame that cannot be read fails.
 */
export function videoFrame(url: string, width: number, timeoutMs = 20_000): Promise<Blob> {
  return new Promise((resolve, reject) => {
    const video = document.createElement('video');
    const done = (error: Error | null, blob?: Blob) => {
      clearTimeout(timer);
      video.removeAttribute('src');
      video.load();
      if (error || !blob) reject(error ?? new Error('No frame'));
      else resolve(blob);
    };
    const timer = setTimeout(() => done(new Error('The video did not load')), timeoutMs);
    video.crossOrigin = 'anonymous';
    video.muted = true;
    video.preload = 'auto';
    video.onerror = () => done(new Error('The video did not load'));
    video.onloadeddata = () => {
      // Seeking to the very start makes the browser decode and keep the first frame.
      video.currentTime = 0;
    };
    video.onseeked = () => {
      const scale = Math.min(1, width / (video.videoWidth || width));
      const canvas = document.createElement('canvas');
      canvas.width = Math.max(1, Math.round(video.videoWidth * scale));
      canvas.height = Math.max(1, Math.round(video.videoHeight * scale));
      try {
        canvas.getContext('2d')?.drawImage(video, 0, 0, canvas.width, canvas.height);
        canvas.toBlob((blob) => done(null, blob ?? undefined), 'image/jpeg', 0.85);
      } catch (error) {
        done(error as Error);
      }
    };
    video.src = url;
  });
}
