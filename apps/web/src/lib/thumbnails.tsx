/**
 * Thumbnails of images, from the storage image transformation (`/render/image/sign/…`, the
 * SDK's `transform` option): small in the list, larger in the grid. PDFs, videos and SVG
 * pictures get theirs made in the browser instead (./made-thumbnails.ts).
 *
 * - Never blocking the list: a row shows its icon at once; the thumbnail's signed URL is
 *   asked for in the background (at most 4 at a time, only for rows on screen), and the image
 *   loads lazily (`loading="lazy"`, `decoding="async"`).
 * - Cached by the browser: the signed URL of a thumbnail is kept (in memory and in this
 *   browser's storage, per user, for its lifetime of a day) so the same image URL comes back
 *   after a reload or a scroll, and the browser's HTTP cache answers it. A file that changes
 *   gets a new URL (its `updated_at` is part of the key).
 * - A file whose thumbnail cannot be made (not an image the backend renders, an error) keeps
 *   its icon.
 */
import { useUser } from '@app/backend-react';
import { memo, type ReactNode, useCallback, useEffect, useState } from 'react';
import { BUCKET, type FileRow } from './api';
import type { DriveClient } from './client-types';
import { limiter } from './limit';
import { forgetMade, madeKindOf, madePicture, shownPicture } from './made-thumbnails';
import type { Entry } from './selection';
import type { MadeKind } from './thumb-makers';
import { useDrive } from './use-drive';

export type PictureSize = 'small' | 'large';
/** Pixels asked of the backend (twice the CSS size, for sharp pictures on dense screens). */
export const PIXELS: Record<PictureSize, number> = { small: 56, large: 320 };
const LIFETIME_S = 24 * 3600;
const REUSE_MARGIN_MS = 3600_000;
const MAX_KEPT = 2000;
const CONCURRENCY = 4;
const RENDERED = new Set(['image/jpeg', 'image/png', 'image/webp', 'image/gif', 'image/avif']);

/** Whether the backend can make a thumbnail of this file. */
export function hasThumbnail(file: Pick<FileRow, 'mime_type' | 'status' | 'size'>): boolean {
  return file.status === 'ready' && Number(file.size) > 0 && RENDERED.has(file.mime_type);
}

type Kept = Record<string, [url: string, expires: number]>;
let kept: Kept = {};
let keptFor = '';
let saveTimer: ReturnType<typeof setTimeout> | null = null;
const storageKey = (uid: string) => `drive:thumbs:${uid}`;

function load(uid: string) {
  if (keptFor === uid) return;
  keptFor = uid;
  try {
    kept = JSON.parse(localStorage.getItem(storageKey(uid)) ?? '{}') as Kept;
  } catch {
    kept = {};
  }
}

function save() {
  if (saveTimer) return;
  saveTimer = setTimeout(() => {
    saveTimer = null;
    const now = Date.now();
    const entries = Object.entries(kept)
      .filter(([, [, expires]]) => expires - REUSE_MARGIN_MS > now)
      .sort((a, b) => b[1][1] - a[1][1])
      .slice(0, MAX_KEPT);
    kept = Object.fromEntries(entries);
    try {
      localStorage.setItem(storageKey(keptFor), JSON.stringify(kept));
    } catch {
      // Storage full or unavailable: the memory copy still serves this page.
    }
  }, 1000);
}

/** Forgets every kept thumbnail URL and made thumbnail of this browser (sign-out). */
export function forgetThumbnails(): void {
  forgetMade();
  kept = {};
  keptFor = '';
  try {
    for (const key of Object.keys(localStorage)) {
      if (key.startsWith('drive:thumbs:')) localStorage.removeItem(key);
    }
  } catch {
    // Nothing kept where there is no storage.
  }
}

const keyOf = (file: FileRow, size: PictureSize) =>
  `${file.object_path}|${file.updated_at}|${PIXELS[size]}`;

function keptUrl(file: FileRow, size: PictureSize): string | null {
  const hit = kept[keyOf(file, size)];
  return hit && hit[1] - REUSE_MARGIN_MS > Date.now() ? hit[0] : null;
}

// At most CONCURRENCY signing requests at once; the others wait their turn.
const turn = limiter(CONCURRENCY);
const inflight = new Map<string, Promise<string | null>>();

function sign(client: DriveClient, file: FileRow, size: PictureSize): Promise<string | null> {
  const key = keyOf(file, size);
  const pending = inflight.get(key);
  if (pending) return pending;
  const px = PIXELS[size];
  const promise = turn(async () => {
    const { data, error } = await client.storage
      .from(BUCKET)
      .createSignedUrl(file.object_path, LIFETIME_S, {
        transform: { width: px, height: px, resize: 'cover' },
      });
    if (error || !data) return null;
    kept[key] = [data.signedUrl, Date.now() + LIFETIME_S * 1000];
    save();
    return data.signedUrl;
  }).finally(() => inflight.delete(key));
  inflight.set(key, promise);
  return promise;
}

/** The thumbnail's picture (`null`: none, the type icon), fading in once loaded. */
function Picture({ url, size }: { url: string | null | undefined; size: PictureSize }) {
  const [state, setState] = useState<'loading' | 'shown' | 'failed'>('loading');
  useEffect(() => {
    if (url !== undefined) setState('loading');
  }, [url]);
  if (url === null || state === 'failed')
    return <span className={`icon-file thumb-${size}-icon`} aria-hidden="true" />;
  return (
    <span className={`thumb thumb-${size}${state === 'shown' ? ' shown' : ''}`} aria-hidden="true">
      {url ? (
        <img
          src={url}
          alt=""
          loading="lazy"
          decoding="async"
          width={PIXELS[size] / 2}
          height={PIXELS[size] / 2}
          onLoad={() => setState('shown')}
          onError={() => setState('failed')}
        />
      ) : null}
    </span>
  );
}

const Thumbnail = memo(function Thumbnail({
  client,
  file,
  size,
}: {
  client: DriveClient;
  file: FileRow;
  size: PictureSize;
}) {
  const [url, setUrl] = useState<string | null | undefined>(() => keptUrl(file, size) ?? undefined);
  useEffect(() => {
    const now = keptUrl(file, size);
    setUrl(now ?? undefined);
    if (now) return;
    let live = true;
    void sign(client, file, size).then((signed) => {
      if (live) setUrl(signed);
    });
    return () => {
      live = false;
    };
  }, [client, file, size]);
  return <Picture url={url} size={size} />;
});

const MadeThumbnail = memo(function MadeThumbnail({
  client,
  uid,
  file,
  kind,
  size,
}: {
  client: DriveClient;
  uid: string;
  file: FileRow;
  kind: MadeKind;
  size: PictureSize;
}) {
  const [url, setUrl] = useState(() => shownPicture(uid, file));
  useEffect(() => {
    const now = shownPicture(uid, file);
    setUrl(now);
    if (now !== undefined) return;
    let live = true;
    void madePicture(client, uid, file, kind).then((made) => {
      if (live) setUrl(made);
    });
    return () => {
      live = false;
    };
  }, [client, uid, file, kind]);
  return <Picture url={url} size={size} />;
});

/**
 * The `picture` of list rows and grid cards: a thumbnail for images the backend renders and
 * for PDFs, videos and SVG pictures (made here), nothing (the type icon) otherwise. Stable
 * for the signed-in user.
 */
export function usePictures(): (entry: Entry, size: PictureSize) => ReactNode {
  const client = useDrive();
  const uid = useUser()?.id ?? '';
  load(uid);
  return useCallback(
    (entry: Entry, size: PictureSize) => {
      if (entry.kind !== 'file') return null;
      if (hasThumbnail(entry.row))
        return <Thumbnail client={client} file={entry.row} size={size} />;
      const kind = madeKindOf(entry.row);
      return kind ? (
        <MadeThumbnail client={client} uid={uid} file={entry.row} kind={kind} size={size} />
      ) : null;
    },
    [client, uid],
  );
}
