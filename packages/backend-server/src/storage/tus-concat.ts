/**
 * tus's concatenation extension: parts of one file uploaded at the same time as partial
 * uploads (`Upload-Concat: partial`, created and sent like any upload, see tus.ts), then
 * joined by a final upload (`Upload-Concat: final;<url> <url> …`), which becomes the object.
 *
 * A partial upload carries the same metadata (bucket and object name) as the object it is
 * part of, so every part is checked against the bucket's policies when it is created, as an
 * upload is; a final upload only takes parts of its own object. Joining appends the other
 * parts to the first part's file (an in-place append, undone on failure) and adopts it as the
 * object's bytes.
 */
import { randomUUID } from 'node:crypto';
import { open, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { type Lock, type Locker, Metadata, Upload } from '@tus/server';
import type { StorageContext } from './context';
import { parseUrlId, TUS_PATH, tusError } from './tus-ids';
import type { ObjectFileStore, UploadRecord } from './tus-store';

/** What joining parts needs from the tus service. */
export interface ConcatDeps {
  s: StorageContext;
  datastore: ObjectFileStore;
  locker: Locker;
  /** The bucket and object name of an upload's metadata (a 400 when they are missing). */
  target(metadata: Record<string, string | null> | undefined): { bucket: string; name: string };
  /** Checks the caller may create the object (before any byte moves); its size limit. */
  authorize(
    req: Request,
    metadata: Record<string, string | null> | undefined,
  ): Promise<{ limit: number; upsert: boolean }>;
  /** Commits `file` (the joined bytes) as the object of `metadata`; removes it on failure. */
  commit(
    req: Request,
    file: string,
    version: string,
    size: number,
    metadata: Record<string, string | null> | undefined,
    upsert: boolean,
  ): Promise<void>;
  /** The absolute URL of an upload, as a creation answers it. */
  url(req: Request, version: string): string;
}

/** The parts named by `Upload-Concat: final;…`, in order (their versions). */
function partsOf(header: string, bucket: string, name: string): string[] {
  const urls = header.slice('final;'.length).trim().split(/ +/).filter(Boolean);
  if (urls.length === 0) throw tusError(400, 'Upload-Concat names no partial upload');
  const versions = urls.map((url) => {
    let path: string;
    try {
      path = new URL(url, 'http://x').pathname;
    } catch {
      throw tusError(400, `Invalid partial upload URL: ${url}`);
    }
    const base = path.slice(0, path.lastIndexOf('/'));
    const parsed = parseUrlId(path.slice(path.lastIndexOf('/') + 1));
    if ((base !== TUS_PATH && base !== `${TUS_PATH}/sign`) || !parsed) {
      throw tusError(400, `Invalid partial upload URL: ${url}`);
    }
    if (parsed.bucket !== bucket || parsed.name !== name) {
      throw tusError(400, 'A partial upload of another object cannot be concatenated');
    }
    return parsed.version;
  });
  if (new Set(versions).size !== versions.length) {
    throw tusError(400, 'Upload-Concat names a partial upload twice');
  }
  return versions;
}

/** Appends `from` (its first `size` bytes) to the open file at `at`. */
async function append(
  to: Awaited<ReturnType<typeof open>>,
  from: string,
  at: number,
  size: number,
) {
  const source = await open(from, 'r');
  const buffer = Buffer.allocUnsafe(Math.min(8 << 20, Math.max(size, 1)));
  try {
    let done = 0;
    while (done < size) {
      const { bytesRead } = await source.read(
        buffer,
        0,
        Math.min(buffer.length, size - done),
        done,
      );
      if (bytesRead === 0) throw new Error('A partial upload is shorter than its record');
      await to.write(buffer, 0, bytesRead, at + done);
      done += bytesRead;
    }
  } finally {
    await source.close();
  }
}

/**
 * Creates a final upload: checks the caller and every part (a partial upload of this object,
 * complete), joins the parts and commits the object. Answers 201 with the final upload's
 * URL; its HEAD says complete, as a finished upload's does.
 */
export async function createFinal(
  d: ConcatDeps,
  req: Request,
  headers: Headers,
): Promise<Response> {
  let metadata: Record<string, string | null> | undefined;
  try {
    metadata = Metadata.parse(req.headers.get('upload-metadata') ?? undefined);
  } catch {
    throw tusError(400, 'Upload-Metadata is invalid');
  }
  const { bucket, name } = d.target(metadata);
  const versions = partsOf(req.headers.get('upload-concat') ?? '', bucket, name);
  const { limit, upsert } = await d.authorize(req, metadata);

  const locks: Lock[] = [];
  const controller = new AbortController();
  const stop = () => controller.abort();
  req.signal.addEventListener('abort', stop, { once: true });
  try {
    for (const version of [...versions].sort()) {
      const lock = d.locker.newLock(version);
      await lock.lock(controller.signal, () => {});
      locks.push(lock);
    }
    const sizes: number[] = [];
    for (const version of versions) {
      const record = (await d.datastore.configstore.get(version)) as UploadRecord | undefined;
      if (!record) throw tusError(404, 'A partial upload was not found');
      if (!record.storage_partial) throw tusError(400, 'An upload named is not a partial upload');
      const have = await stat(join(d.s.disk.tus, version)).catch(() => null);
      if (record.size === undefined || !have || have.size < record.size) {
        throw tusError(400, 'A partial upload is not finished');
      }
      sizes.push(record.size);
    }
    const total = sizes.reduce((a, b) => a + b, 0);
    const declared = req.headers.get('upload-length');
    if (declared !== null && Number(declared) !== total) {
      throw tusError(400, 'Upload-Length does not match the partial uploads');
    }
    if (total > limit) throw tusError(413, 'Maximum size exceeded');

    const [first, ...rest] = versions as [string, ...string[]];
    const file = join(d.s.disk.tus, first);
    const handle = await open(file, 'r+');
    let joined = false;
    try {
      let at = sizes[0] as number;
      for (const [i, version] of rest.entries()) {
        await append(handle, join(d.s.disk.tus, version), at, sizes[i + 1] as number);
        at += sizes[i + 1] as number;
      }
      await handle.truncate(total);
      joined = true;
    } finally {
      // A failed join leaves the first part as it was.
      if (!joined) await handle.truncate(sizes[0] as number).catch(() => {});
      await handle.close();
    }
    const version = randomUUID();
    await d.commit(req, file, version, total, metadata, upsert);
    for (const v of versions) {
      await d.datastore.configstore.delete(v).catch(() => {});
      if (v !== first) await rm(join(d.s.disk.tus, v), { force: true });
    }
    const upload = new Upload({ id: version, size: total, offset: total, metadata });
    Object.assign(upload, { storage_concat: req.headers.get('upload-concat') });
    d.datastore.keepFinished(upload, d.datastore.getExpiration());
    headers.set('Location', d.url(req, version));
    headers.set('Upload-Concat', req.headers.get('upload-concat') ?? '');
    return new Response(null, { status: 201, headers });
  } finally {
    req.signal.removeEventListener('abort', stop);
    for (const lock of locks) await lock.unlock().catch(() => {});
  }
}
