import type { Sharp, SharpOptions } from 'sharp';
import { StorageError } from '../errors';
import type { Transform } from './transform';

/** Output formats a render can produce, with their media types. */
export const OUTPUT_TYPES = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  avif: 'image/avif',
  gif: 'image/gif',
  tiff: 'image/tiff',
} as const;

export type OutputFormat = keyof typeof OUTPUT_TYPES;

/** What the request lets the renderer pick: a fixed format, or the source's own. */
export type FormatChoice = 'origin' | 'webp' | 'avif';

/**
 * The output format choice for options and the client's `Accept` header, as the hosted
 * service decides: an explicit `webp`/`avif` wins; `origin` keeps the source format; with
 * no format, WebP when the client accepts it, else the source format.
 */
export function chooseFormat(t: Transform, accept: string | null): FormatChoice {
  if (t.format === 'webp' || t.format === 'avif') return t.format;
  if (t.format === 'origin') return 'origin';
  return accept && /(^|[\s,])image\/webp([\s;,]|$)/i.test(accept) ? 'webp' : 'origin';
}

/** Limits of one render (the hosted service's: 25 MB, 50 megapixels, 2500 px). */
export interface ImageLimits {
  /** Largest source image in bytes. */
  maxSourceBytes: number;
  /** Largest source image in pixels (width × height). */
  maxSourcePixels: number;
  /** Seconds one render may take. */
  timeoutSeconds: number;
}

/** A rendered variant. */
export interface Rendered {
  data: Buffer;
  format: OutputFormat;
}

type SharpFactory = (input: string | Buffer, options?: SharpOptions) => Sharp;
let loading: Promise<SharpFactory> | null = null;

/** sharp (and libvips) is loaded on the first render only, so the server starts fast. */
function loadSharp(): Promise<SharpFactory> {
  loading ??= import('sharp').then((m) => {
    const sharp = (m as unknown as { default: SharpFactory & { cache(o: boolean): void } }).default;
    // Our own variant cache keeps results; libvips' operation cache would only hold memory.
    sharp.cache(false);
    return sharp;
  });
  return loading;
}

/** The hosted render errors: HTTP 400 with the logical status in `statusCode`. */
const renderError = (status: number, message: string) =>
  new StorageError('InvalidRequest', 'InvalidRequest', status, message);

export const RENDER_ERRORS = {
  invalidSource: () => renderError(400, 'The source image is invalid or unsupported for rendering'),
  tooManyPixels: () => renderError(400, 'The source image resolution is too large to process'),
  tooLarge: () => renderError(400, 'The source image file is too large to process'),
  timeout: () => renderError(408, 'Image request timed out'),
};

/**
 * Whether `head` (the first 16 bytes) starts a JPEG, PNG, GIF, WebP, TIFF or HEIF/AVIF
 * file: formats that reference nothing outside themselves.
 */
export function isRaster(head: Buffer): boolean {
  const ascii = (from: number, to: number) => head.toString('latin1', from, to);
  return (
    (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) ||
    ascii(0, 8) === '\x89PNG\r\n\x1a\n' ||
    ascii(0, 4) === 'GIF8' ||
    (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') ||
    ascii(0, 4) === 'II*\0' ||
    ascii(0, 4) === 'MM\0*' ||
    ascii(4, 8) === 'ftyp'
  );
}

/** sharp's name of an output format → ours (`heif` output is AVIF-coded here). */
const OUTPUT_NAMES: Record<string, OutputFormat> = {
  jpeg: 'jpeg',
  png: 'png',
  webp: 'webp',
  gif: 'gif',
  tiff: 'tiff',
  heif: 'avif',
  avif: 'avif',
};

/** A source that no longer exists on disk (replaced or deleted meanwhile). */
export class SourceGone extends Error {}

function mapSharpError(error: unknown): Error {
  const message = error instanceof Error ? error.message : String(error);
  if (/Input file is missing/i.test(message)) return new SourceGone(message);
  if (/pixel limit/i.test(message)) return RENDER_ERRORS.tooManyPixels();
  if (/timeout/i.test(message)) return RENDER_ERRORS.timeout();
  return RENDER_ERRORS.invalidSource();
}

/**
 * Renders an image (a raster file's path, or bytes) with (clamped) options into the chosen
 * format, with sharp: libvips reads, decodes, resizes and encodes on its own threads, so the
 * event loop stays free. For `origin` the encoder options are set for
 * every format without forcing one, so the source's own format comes out (SVG becomes PNG;
 * a format we do not answer with becomes PNG or JPEG). A source that is not an image, is
 * corrupt, or is over the pixel limit gives the hosted 400 error, never a crash.
 */
export async function renderImage(
  input: string | Buffer,
  t: Transform,
  choice: FormatChoice,
  limits: ImageLimits,
): Promise<Rendered> {
  const sharp = await loadSharp();
  const quality = t.quality ?? 80;
  const pipeline = () => {
    const image = sharp(input, { limitInputPixels: limits.maxSourcePixels, failOn: 'error' })
      .autoOrient()
      .timeout({ seconds: limits.timeoutSeconds });
    if (t.width || t.height) {
      image.resize({
        width: t.width,
        height: t.height,
        fit: t.resize === 'contain' ? 'inside' : t.resize === 'fill' ? 'fill' : 'cover',
        withoutEnlargement: true,
      });
    }
    return image;
  };
  try {
    const image = pipeline();
    const force = choice !== 'origin';
    if (choice === 'webp') image.webp({ quality });
    else if (choice === 'avif') image.avif({ quality: t.quality ?? 60 });
    else {
      image
        .jpeg({ quality, force })
        .webp({ quality, force })
        .avif({ quality: t.quality ?? 60, force })
        .png({ force })
        .gif({ force })
        .tiff({ quality, force });
    }
    const { data, info } = await image.toBuffer({ resolveWithObject: true });
    const format = OUTPUT_NAMES[info.format];
    if (format) return { data, format };
    // A source format we do not answer with (e.g. raw or PDF): PNG with alpha, else JPEG.
    const fallback = info.hasAlpha ? 'png' : 'jpeg';
    const again = pipeline();
    const out = await (fallback === 'png' ? again.png() : again.jpeg({ quality })).toBuffer();
    return { data: out, format: fallback };
  } catch (error) {
    throw mapSharpError(error);
  }
}
