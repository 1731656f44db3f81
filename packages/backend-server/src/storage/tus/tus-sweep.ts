/**
 * The collector of the tus directory, run at start-up and every hour by each replica sharing
 * the directory. It removes expired uploads, records whose bytes are gone, complete uploads
 * that never became objects (a crash between the last byte and the commit) and files without
 * a record. Complete partial uploads stay until they expire: a final upload may still take
 * them; so do uploads that became objects (they answer as complete until then).
 *
 * Another replica may be writing any of them: an upload is only removed under its lock, taken
 * with a try-lock (skipped when held), and, unless it expired (tus refuses an expired upload
 * anyway), only once nothing touched its files for the grace period: a new upload's file is
 * made before its record, and a commit moves the file away before its record is marked done.
 */
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { HeldLock } from './tus-lock';
import type { UploadRecord } from './tus-store';

/** How long an upload's files must be untouched before a dead-looking upload is removed. */
export const TUS_GRACE_MS = 10 * 60 * 1000;

export interface SweepOptions {
  /** Takes an upload's lock if free (null when another request holds it). */
  tryLock?: (id: string) => Promise<HeldLock | null>;
  /** Idle time before a dead-looking upload goes. Default 0 (a directory no one else uses). */
  graceMs?: number;
  /** The time now (ms since the epoch). */
  now?: number;
}

const mtime = async (path: string) => (await stat(path).catch(() => null))?.mtimeMs ?? null;

/** Sweeps `dir` (see above); resolves to the number of uploads and files removed. */
export async function sweepTus(
  dir: string,
  expiryMs: number,
  options: SweepOptions = {},
): Promise<number> {
  const { tryLock = async () => ({ unlock: async () => {} }), graceMs = 0 } = options;
  const now = options.now ?? Date.now();
  const names = new Set(await readdir(dir));
  const idle = async (...paths: string[]) => {
    const times = await Promise.all(paths.map(mtime));
    return times.every((t) => t === null || now - t >= graceMs);
  };
  /** Whether upload `id` is to go: expired, or dead and idle. */
  const doomed = async (id: string): Promise<boolean> => {
    let record: UploadRecord | null = null;
    try {
      record = JSON.parse(await readFile(join(dir, `${id}.json`), 'utf8')) as UploadRecord;
    } catch {}
    const created = record?.creation_date ? Date.parse(record.creation_date) : 0;
    if (record && expiryMs > 0 && now > created + expiryMs) return true;
    if (record?.storage_done) return false;
    const data = await stat(join(dir, id)).catch(() => null);
    const complete = record?.size !== undefined && data !== null && data.size >= record.size;
    // A placed part's bytes are in its final upload's file; a final upload waiting for its
    // parts, and complete parts, stay until they expire.
    const into = record?.storage_into;
    const bytes = into
      ? (await mtime(join(dir, `${into}.json`))) !== null && (await mtime(join(dir, into))) !== null
      : data !== null;
    const waiting = record?.storage_partial || record?.storage_parts;
    const dead = !record || !bytes || (complete && !waiting);
    return dead && (await idle(join(dir, `${id}.json`), join(dir, id)));
  };
  let removed = 0;
  for (const name of names) {
    if (name.endsWith('.json')) {
      const id = name.slice(0, -5);
      if (!(await doomed(id))) continue;
      const lock = await tryLock(id);
      if (!lock) continue;
      try {
        // Looked at again under the lock: a request may have finished with it meanwhile.
        if (!(await doomed(id))) continue;
        await rm(join(dir, id), { force: true });
        await rm(join(dir, name), { force: true });
        removed++;
      } finally {
        await lock.unlock();
      }
    } else if (!names.has(`${name}.json`) && (await idle(join(dir, name)))) {
      // Data files without a record (a placed part has a record and no data file), and
      // records half written.
      if ((await mtime(join(dir, `${name}.json`))) !== null) continue;
      await rm(join(dir, name), { force: true, recursive: true });
      removed++;
    }
  }
  return removed;
}
