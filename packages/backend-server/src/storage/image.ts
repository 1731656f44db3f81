import type { Sharp, SharpOptions } from 'sharp';
import { StorageError } from './errors';
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

type SharpFactory = (input: Buffer, options?: SharpOptions) => Sharp;
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

/** Source formats that are written back as themselves for `origin`. */
const KEEP: Record<string, OutputFormat> = {
  jpeg: 'jpeg',
  png: 'png',
  webp: 'webp',
  gif: 'gif',
  tiff: 'tiff',
  heif: 'avif',
};

function originFormat(input: string | undefined, compression: string | undefined, alpha: boolean) {
  if (input === 'heif') return compression === 'av1' ? 'avif' : alpha ? 'png' : 'jpeg';
  return (input && KEEP[input]) || (alpha ? 'png' : 'jpeg');
}

function mapSharpError(error: unknown): StorageError {
  const message = error instanceof Error ? error.message : String(error);
  if (/pixel limit/i.test(message)) return RENDER_ERRORS.tooManyPixels();
  if (/timeout/i.test(message)) return RENDER_ERRORS.timeout();
  return RENDER_ERRORS.invalidSource();
}

/**
 * Renders `input` with (clamped) options into the chosen format, with sharp (libvips works
 * on its own threads, so the event loop stays free). A source that is not an image, is
 * corrupt, or is over the limits gives the hosted 400 error, never a crash.
 */
export async function renderImage(
  input: Buffer,
  t: Transform,
  choice: FormatChoice,
  limits: ImageLimits,
): Promise<Rendered> {
  if (input.byteLength > limits.maxSourceBytes) throw RENDER_ERRORS.tooLarge();
  const sharp = await loadSharp();
  try {
    const image = sharp(input, { limitInputPixels: limits.maxSourcePixels, failOn: 'error' });
    const meta = await image.metadata();
    const format: OutputFormat =
      choice === 'origin' ? originFormat(meta.format, meta.compression, meta.hasAlpha) : choice;
    image.autoOrient().timeout({ seconds: limits.timeoutSeconds });
    if (t.width || t.height) {
      image.resize({
        width: t.width,
        height: t.height,
        fit: t.resize === 'contain' ? 'inside' : t.resize === 'fill' ? 'fill' : 'cover',
        withoutEnlargement: true,
      });
    }
    const quality = t.quality ?? 80;
    if (format === 'jpeg') image.jpeg({ quality });
    else if (format === 'webp') image.webp({ quality });
    else if (format === 'avif') image.avif({ quality: t.quality ?? 60 });
    else if (format === 'png') image.png();
    else if (format === 'gif') image.gif();
    else image.tiff({ quality });
    return { data: await image.toBuffer(), format };
  } catch (error) {
    throw mapSharpError(error);
  }
}
