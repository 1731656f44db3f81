/**
 * tus's concatenation extension: parts of one file uploaded at the same time as partial
 * uploads (`Upload-Concat: partial`, created and sent like any upload, see tus.ts), then
 * joined by a final upload (`Upload-Concat: final;<url> <url> …`), which becomes the object.
 *
 * A partial upload carries the same metadata (bucket and object name) as the object it is
 * part of, so every part is checked against the bucket's policies when it is created, as an
 * upload is; a final upload only takes parts of its own object. Complete parts are joined by
 * appending the others to the first part's file (undone on failure), which becomes the
 * object's bytes; parts still under way are placed in the final upload's file instead
 * (`concatenation-unfinished`, tus-assembly.ts). On the S3 backend complete parts are joined
 * inside the bucket (joinInBucket).
 */
import { randomUUID } from 'node:crypto';
import { open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { type Lock, type Locker, Metadata } from '@tus/server';
import type { StorageContext } from '../context';
import { append, placeParts } from './tus-assembly';
import { parseUrlId, TUS_PATH, tusError } from './tus-ids';
import { ObjectS3Store } from './tus-s3-store';
import type { ObjectFileStore, UploadRecord } from './tus-store';

/** What joining parts needs from the tus service. */
export interface ConcatDeps {
  s: StorageContext;
  datastore: ObjectFileStore | ObjectS3Store;
  locker: Locker;
  /** The bucket and object name of an upload's metadata (a 400 when they are missing). */
  target(metadata: Record<string, string | null> | undefined): { bucket: string; name: string };
  /** Checks the caller may create the object (before any byte moves); its size limit. */
  authorize(
    req: Request,
    metadata: Record<string, string | null> | undefined,
  ): Promise<{ limit: number; upsert: boolean }>;
  /**
   * Commits `file` (the joined bytes; null: at the version's key) as the object of
   * `metadata`; removes them on failure.
   */
  commit(
    req: Request,
    file: string | null,
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

/** A part named by a final upload: its size, the bytes it holds, its final upload if placed. */
async function partOf(d: ConcatDeps, version: string) {
  const record = await d.datastore.record(version);
  if (!record || record.storage_done) throw tusError(404, 'A partial upload was not found');
  if (!record.storage_partial) throw tusError(400, 'An upload named is not a partial upload');
  if (record.size === undefined) {
    throw tusError(400, 'A partial upload of unknown length cannot be concatenated');
  }
  const have =
    record.storage_into !== undefined
      ? (record.storage_written ?? 0)
      : await d.datastore.held(version);
  if (have < 0) throw tusError(404, 'A partial upload was not found');
  return { size: record.size, have, into: record.storage_into };
}

/**
 * Creates a final upload: checks the caller and every part (a partial upload of this object).
 * When every part is complete, joins them and commits the object; its HEAD then says
 * complete, as a finished upload's does. Otherwise (tus's `concatenation-unfinished`) the
 * parts are placed in the final upload's file and the object is committed when the last of
 * them is (tus-assembly.ts). Answers 201 with the final upload's URL.
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
  const concat = req.headers.get('upload-concat') ?? '';
  const versions = partsOf(concat, bucket, name);
  // Asked again once its object is committed (a client that lost the answer of its last
  // PATCH): the same final upload, which answers HEAD as complete. The part URLs, which only
  // their uploader has, say as much as the answer does.
  const finals = await Promise.all(
    versions.map(async (v) => (await d.datastore.record(v))?.storage_final),
  );
  if (finals[0] !== undefined && finals.every((f) => f === finals[0])) {
    headers.set('Location', d.url(req, finals[0]));
    return new Response(null, { status: 201, headers });
  }
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
    const parts = await Promise.all(versions.map((v) => partOf(d, v)));
    // Asked again for parts it already took (a client resuming): the same final upload.
    const taken = new Set(parts.map((p) => p.into));
    const into = parts[0]?.into;
    if (into !== undefined && taken.size === 1) {
      headers.set('Location', d.url(req, into));
      return new Response(null, { status: 201, headers });
    }
    if (taken.size > 1) throw tusError(400, 'A partial upload belongs to another final upload');
    const sizes = parts.map((p) => p.size);
    const total = sizes.reduce((a, b) => a + b, 0);
    const declared = req.headers.get('upload-length');
    if (declared !== null && Number(declared) !== total) {
      throw tusError(400, 'Upload-Length does not match the partial uploads');
    }
    if (total > limit) throw tusError(413, 'Maximum size exceeded');
    if (d.datastore instanceof ObjectS3Store) {
      if (parts.some((p) => p.have < p.size)) {
        throw tusError(400, 'The partial uploads must be complete before they are concatenated');
      }
      const named = versions.map((version, i) => ({ version, size: sizes[i] as number }));
      const version = await joinInBucket(d, d.datastore, named, total, metadata, upsert, req);
      return finished(d, req, headers, version, total, metadata, concat);
    }
    if (parts.some((p) => p.have < p.size)) {
      // Parts still under way: placed in the final upload's file, which they then write.
      const version = await placeParts(d, versions, parts, { metadata, upsert, header: concat });
      headers.set('Location', d.url(req, version));
      headers.set('Upload-Concat', concat);
      return new Response(null, { status: 201, headers });
    }

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
    return finished(d, req, headers, version, total, metadata, concat);
  } finally {
    req.signal.removeEventListener('abort', stop);
    for (const lock of locks) await lock.unlock().catch(() => {});
  }
}

/** The answer of a final upload whose object is committed: it answers as complete until it
 * expires (tus-store.ts). */
async function finished(
  d: ConcatDeps,
  req: Request,
  headers: Headers,
  version: string,
  total: number,
  metadata: Record<string, string | null> | undefined,
  concat: string,
): Promise<Response> {
  const done: UploadRecord & { id: string; offset: number } = {
    id: version,
    size: total,
    offset: total,
    metadata,
    creation_date: new Date().toISOString(),
    storage_concat: concat,
    storage_done: true,
  };
  await d.datastore.configstore.set(version, done as never);
  headers.set('Location', d.url(req, version));
  headers.set('Upload-Concat', concat);
  return new Response(null, { status: 201, headers });
}

/**
 * Joins complete parts on the S3 backend (under their locks) into a new version, which is
 * committed; the parts are gone after. Inside the store when S3 allows (every part but the
 * last of 5 MiB or more: UploadPartCopy), else each part's object is read in order into the
 * new version's write. Returns the new version (the final upload's id).
 */
async function joinInBucket(
  d: ConcatDeps,
  store: ObjectS3Store,
  parts: { version: string; size: number }[],
  total: number,
  metadata: Record<string, string | null> | undefined,
  upsert: boolean,
  req: Request,
): Promise<string> {
  let version: string = randomUUID();
  if (!(await store.backend.join(parts, version))) {
    const writer = await d.s.objects.createWriter(total);
    try {
      for (const { version: part } of parts) {
        const object = await d.s.objects.open(part);
        const bytes = object.stream(0, object.size) as unknown as AsyncIterable<Uint8Array>;
        for await (const chunk of bytes) await writer.write(chunk);
      }
      await writer.finish();
      await writer.commit();
    } catch (error) {
      await writer.discard();
      throw error;
    }
    version = writer.version;
  }
  await d.commit(req, null, version, total, metadata, upsert);
  for (const { version: part } of parts) {
    const record = await store.record(part);
    if (record) await store.dropUpload(part, record).catch(() => {});
    await store.configstore.delete(part).catch(() => {});
  }
  return version;
}
