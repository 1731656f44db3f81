/**
 * tus's `concatenation-unfinished`: a final upload created while its parts are still being
 * sent. Its file is made at once, each part's bytes so far are copied to their place in it,
 * and from then on each part writes there directly (ObjectFileStore.write), so the last byte
 * of the last part completes the object with nothing left to copy. The object is committed by
 * the request that completes the last part, as a plain upload's last PATCH commits it.
 */
import { randomUUID } from 'node:crypto';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import type { ConcatDeps } from './tus-concat';
import { ObjectFileStore, type UploadRecord } from './tus-store';

/** Appends `from` (its first `size` bytes) to the open file at `at`. */
export async function append(
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

/** What the final upload keeps: its object's metadata, upsert flag and `Upload-Concat`. */
interface FinalInfo {
  metadata: Record<string, string | null> | undefined;
  upsert: boolean;
  header: string;
}

/**
 * Makes the final upload of `versions` (under their locks): its file with each part's bytes
 * so far in place, its record, and each part's record pointing into it. Returns its id.
 */
export async function placeParts(
  d: ConcatDeps,
  versions: string[],
  parts: { size: number; have: number }[],
  info: FinalInfo,
): Promise<string> {
  const version = randomUUID();
  const file = join(d.s.disk.tus, version);
  const total = parts.reduce((sum, p) => sum + p.size, 0);
  const handle = await open(file, 'wx');
  try {
    let at = 0;
    for (const [i, part] of parts.entries()) {
      const id = versions[i] as string;
      if (part.have > 0) await append(handle, join(d.s.disk.tus, id), at, part.have);
      at += part.size;
    }
  } finally {
    await handle.close();
  }
  const store = d.datastore.configstore;
  const record: UploadRecord & { id: string; offset: number } = {
    id: version,
    size: total,
    offset: 0,
    metadata: info.metadata,
    creation_date: new Date().toISOString(),
    storage_upsert: info.upsert,
    storage_parts: versions,
    storage_concat: info.header,
  };
  await store.set(version, record as never);
  let at = 0;
  for (const [i, part] of parts.entries()) {
    const id = versions[i] as string;
    const own = (await store.get(id)) as UploadRecord | undefined;
    await store.set(id, {
      ...own,
      storage_into: version,
      storage_at: at,
      storage_written: part.have,
    } as never);
    if (d.datastore instanceof ObjectFileStore) await d.datastore.dropData(id);
    at += part.size;
  }
  return version;
}

/**
 * Called when a placed part is complete: if every part of final upload `version` is, commits
 * the object as the caller of `req` (once, however many parts finish at the same time, on
 * whichever replicas: the check and the commit hold the final upload's lock). Its parts then
 * answer HEAD as complete, and a final upload asked again for them gets this one.
 */
export async function partFinished(
  d: Omit<ConcatDeps, 'url'>,
  req: Request,
  version: string,
): Promise<void> {
  const lock = d.locker.newLock(version);
  // Taken also when the client has gone: no one else would commit the object.
  await lock.lock(new AbortController().signal, () => {});
  try {
    const final = await d.datastore.record(version);
    if (!final?.storage_parts || final.size === undefined || final.storage_done) return;
    const parts = await Promise.all(final.storage_parts.map((id) => d.datastore.record(id)));
    if (parts.some((p) => !p || p.size === undefined || (p.storage_written ?? 0) < p.size)) return;
    try {
      const file = join(d.s.disk.tus, version);
      await d.commit(req, file, version, final.size, final.metadata, final.storage_upsert === true);
    } catch (error) {
      // Refused (the object exists, a policy): the parts are of no more use.
      const store = d.datastore.configstore;
      for (const id of [...final.storage_parts, version]) await store.delete(id).catch(() => {});
      throw error;
    }
    for (const id of final.storage_parts)
      await d.datastore.markDone(id, { storage_final: version });
    await d.datastore.markDone(version);
  } finally {
    await lock.unlock();
  }
}
