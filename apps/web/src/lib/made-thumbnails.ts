/**
 * Thumbnails the backend does not render, made in this browser: a PDF's first page, a
 * video's first frame, an SVG picture (sanitised). Each is made once per version of a file
 * (../thumb-store.ts keeps it in IndexedDB, keyed by user, file id and `updated_at`), at
 * most `CONCURRENCY` at a time and only when a row showing it is on screen; the code that
 * makes them (pdf.js, DOMPurify) loads on the first one. One 320-pixel picture serves both
 * the list and the grid.
 */
import { type FileRow, signedUrl } from './api';
import type { DriveClient } from './client-types';
import { limiter } from './limit';
import type { MadeKind } from './thumb-makers';
import { forgetKept, keep, readKept } from './thumb-store';

const MADE_PX = 320;
const CONCURRENCY = 2;
const MIB = 1024 * 1024;
/** Larger files keep their icon: a PDF and an SVG are read whole to make their picture. */
const MAX_SIZE: Record<MadeKind, number> = { pdf: 20 * MIB, svg: 1 * MIB, video: Infinity };
/** Videos a browser can decode (not, say, `video/mp2t` or `video/x-msvideo`). */
const VIDEO = new Set(['video/mp4', 'video/webm', 'video/ogg', 'video/quicktime']);

type Made = Pick<FileRow, 'id' | 'updated_at' | 'object_path' | 'name' | 'mime_type'>;

/** The kind of thumbnail made here for the file, or null when there is none. */
export function madeKindOf(
  file: Pick<FileRow, 'mime_type' | 'status' | 'size' | 'name'>,
): MadeKind | null {
  if (file.status !== 'ready' || Number(file.size) <= 0) return null;
  const m = file.mime_type;
  const kind: MadeKind | null =
    m === 'application/pdf'
      ? 'pdf'
      : m === 'image/svg+xml'
        ? 'svg'
        : VIDEO.has(m) && !/\.tsx?$/i.test(file.name)
          ? 'video'
          : null;
  return kind && Number(file.size) <= MAX_SIZE[kind] ? kind : null;
}

// This page's object URLs of the pictures (null: none), so a scroll shows them at once.
const shown = new Map<string, string | null>();
const inflight = new Map<string, Promise<string | null>>();
const turn = limiter(CONCURRENCY);
const keyOf = (uid: string, file: Made) => `${uid}|${file.id}|${file.updated_at}`;

/** The picture already at hand (`undefined`: not yet looked for). */
export function shownPicture(uid: string, file: Made): string | null | undefined {
  return shown.get(keyOf(uid, file));
}

async function make(client: DriveClient, file: Made, kind: MadeKind, key: string) {
  const signed = await signedUrl(client, file, false);
  // Not kept: signing may work next time.
  if (signed.error || !signed.data) return null;
  try {
    const { makePicture } = await import('./thumb-makers');
    const picture = await makePicture(kind, signed.data.signedUrl, MADE_PX);
    await keep(key, picture);
    return picture;
  } catch {
    await keep(key, null);
    return null;
  }
}

/** The picture of a file: kept in this browser, or made now (waiting its turn). */
export function madePicture(
  client: DriveClient,
  uid: string,
  file: Made,
  kind: MadeKind,
): Promise<string | null> {
  const key = keyOf(uid, file);
  const hit = shown.get(key);
  if (hit !== undefined) return Promise.resolve(hit);
  const pending = inflight.get(key);
  if (pending) return pending;
  const promise = (async () => {
    let picture = await readKept(key);
    if (picture === undefined) picture = await turn(() => make(client, file, kind, key));
    const url = picture ? URL.createObjectURL(picture) : null;
    shown.set(key, url);
    return url;
  })().finally(() => inflight.delete(key));
  inflight.set(key, promise);
  return promise;
}

/** Forgets the pictures made in this browser (sign-out). */
export function forgetMade(): void {
  for (const url of shown.values()) if (url) URL.revokeObjectURL(url);
  shown.clear();
  void forgetKept();
}
