/** Options and results of the object API (`client.storage.from(bucket)`). */

import type { TransferProgress } from './body';

/** Options of `upload`, `update` and `uploadToSignedUrl`. */
export interface FileOptions {
  /** `Cache-Control` max-age in seconds (default 3600). */
  cacheControl?: string | number;
  /** MIME type (default: the Blob's type, text for strings, else octet-stream). */
  contentType?: string;
  /** Overwrite an existing object (default false). */
  upsert?: boolean;
  /** User metadata stored with the object. */
  metadata?: Record<string, unknown>;
  /** Called as bytes are sent. */
  onUploadProgress?: (progress: TransferProgress) => void;
  signal?: AbortSignal;
}

/**
 * Image transformation options: the image is served through `/render/image/…`, resized and
 * re-encoded by the server (names and behaviour as supabase-js and the hosted storage).
 *
 * @example
 * // A 200×200 thumbnail, cropped to fill the square, WebP where the browser takes it.
 * files.getPublicUrl('cat.jpg', { transform: { width: 200, height: 200 } });
 */
export interface TransformOptions {
  /**
   * Width in pixels (the server clamps it to its limit, 2500 hosted; images are never
   * enlarged).
   *
   * @example
   * { width: 320 } // height follows the aspect ratio
   */
  width?: number;
  /**
   * Height in pixels.
   *
   * @example
   * { width: 320, height: 240 }
   */
  height?: number;
  /**
   * How the image fits `width`×`height` (default `cover`): `cover` keeps the aspect ratio
   * and crops what does not fit; `contain` keeps it and fits the whole image inside (one
   * side may come out shorter); `fill` stretches to exactly that size.
   *
   * @example
   * { width: 200, height: 200, resize: 'contain' }
   */
  resize?: 'cover' | 'contain' | 'fill';
  /**
   * Output format. Without it the server answers WebP to clients whose `Accept` allows it,
   * else the source's format; `origin` always keeps the source's format; `webp` and `avif`
   * force that format.
   *
   * @example
   * { width: 200, format: 'origin' } // a JPEG stays a JPEG
   */
  format?: 'origin' | 'avif' | 'webp';
  /**
   * Encoding quality, 20 to 100 (default 80).
   *
   * @example
   * { width: 800, quality: 60 }
   */
  quality?: number;
}

/** Options of `getPublicUrl`, `createSignedUrl(s)` and `download`. */
export interface UrlOptions {
  /**
   * Serve the object as an attachment: `true`, or the file name to save it under.
   *
   * @example
   * { download: 'report.pdf' }
   */
  download?: string | boolean;
  /**
   * Serve a transformed image (through `/render/image/…`). An empty object means none.
   *
   * @example
   * { transform: { width: 200, height: 200 } }
   */
  transform?: TransformOptions;
  /**
   * A value added to the URL as `cacheNonce=…`, so caches in between fetch it anew.
   *
   * @example
   * { cacheNonce: String(updatedAt) }
   */
  cacheNonce?: string;
}

/** A file or folder entry of `list()`. */
export interface FileObject {
  name: string;
  id: string | null;
  updated_at: string | null;
  created_at: string | null;
  last_accessed_at: string | null;
  metadata: Record<string, unknown> | null;
}

/** What `info()` returns (camel-cased). */
export interface FileInfo {
  id: string;
  name: string;
  version?: string;
  bucketId: string;
  size: number;
  contentType: string;
  cacheControl: string;
  etag: string;
  metadata: Record<string, unknown> | null;
  lastModified: string;
  createdAt: string;
}

/** Sorting of `list()`. */
export interface SortBy {
  column: 'name' | 'updated_at' | 'created_at' | 'last_accessed_at';
  order: 'asc' | 'desc';
}

/** Options of `download` and `downloadStream`. */
export interface DownloadOptions {
  /**
   * Download the transformed image instead (through `/render/image/authenticated/…`).
   *
   * @example
   * { transform: { width: 200, height: 200, resize: 'contain' } }
   */
  transform?: TransformOptions;
  /** Added to the URL as `cacheNonce=…` (bypasses caches in between). */
  cacheNonce?: string;
  signal?: AbortSignal;
}
