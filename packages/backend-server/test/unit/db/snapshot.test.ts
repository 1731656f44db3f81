import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, platformVersion } from '../../../src/db/open';
import { ROLES_SQL } from '../../../src/db/platform-sql';

/** The entries of a ustar archive: name → data. */
function untar(tar: Uint8Array): Map<string, Uint8Array> {
  const files = new Map<string, Uint8Array>();
  const text = (from: number, to: number) =>
    Buffer.from(tar.subarray(from, to)).toString('latin1').replace(/\0.*$/s, '');
  for (let at = 0; at + 512 <= tar.length; ) {
    const name = text(at, at + 100);
    if (!name) break;
    const size = Number.parseInt(text(at + 124, at + 136), 8);
    files.set(name, tar.subarray(at + 512, at + 512 + size));
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return files;
}

import { snapshotPath } from '../../../src/db/snapshot';

// pg_control's `state` (after system identifier, control version and catalog version).
const DB_SHUTDOWNED = 1;

describe('platform snapshot', () => {
  const dirs: string[] = [];
  const tempDir = async () => {
    const dir = await mkdtemp(join(tmpdir(), 'snapshot-test-'));
    dirs.push(dir);
    return dir;
  };
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  // Each case initialises a data directory (initdb, several seconds on a busy machine).
  const SLOW = 120_000;

  it(
    'is a cleanly shut down data directory that restores with the platform in place',
    async () => {
      const cacheDir = await tempDir();
      const stale = join(cacheDir, 'platform-pglite-0.0.0-0000000000000000.tar.gz');
      const recent = join(cacheDir, 'platform-pglite-0.0.1-0000000000000000.tar.gz');
      await writeFile(stale, 'unused for eight days');
      await writeFile(recent, 'read yesterday');
      const day = 24 * 3600 * 1000;
      await utimes(stale, new Date(Date.now() - 8 * day), new Date(Date.now() - 8 * day));
      await utimes(recent, new Date(Date.now() - day), new Date(Date.now() - day));
      const platformSql = [
        ROLES_SQL,
        'create schema probe; create table probe.t (v int); insert into probe.t values (42);',
      ];
      const first = await openDatabase({ platformSql, cacheDir });
      await first.close();

      const names = await readdir(cacheDir);
      const name = names.find((n) => n.endsWith('.tar.gz') && n !== basename(recent));
      expect(name).toMatch(/^platform-pglite-.*\.tar\.gz$/);
      const files = untar(gunzipSync(await readFile(join(cacheDir, name as string))));
      expect(files.has('/PG_VERSION')).toBe(true);
      const control = files.get('/global/pg_control');
      expect(control && Buffer.from(control).readUInt32LE(16)).toBe(DB_SHUTDOWNED);
      // Neither a build directory nor the week-old snapshot is left; the recent one is kept.
      expect(names.filter((n) => n.startsWith('build-'))).toEqual([]);
      expect(existsSync(stale)).toBe(false);
      expect(existsSync(recent)).toBe(true);

      const second = await openDatabase({ platformSql, cacheDir });
      const { rows } = await second.query<{ v: number }>('select v from probe.t');
      expect(rows).toEqual([{ v: 42 }]);
      await second.close();
    },
    SLOW,
  );

  it(
    'rebuilds a damaged snapshot',
    async () => {
      const cacheDir = await tempDir();
      const platformSql = [ROLES_SQL, 'create schema probe2;'];
      const file = snapshotPath(cacheDir, await platformVersion(platformSql));
      await writeFile(file, 'not a tarball');
      const db = await openDatabase({ platformSql, cacheDir });
      const { rows } = await db.query<{ n: string }>(
        `select nspname as n from pg_namespace where nspname = 'probe2'`,
      );
      expect(rows).toEqual([{ n: 'probe2' }]);
      await db.close();
      expect(
        gunzipSync(await readFile(file))
          .subarray(257, 262)
          .toString(),
      ).toBe('ustar');
    },
    SLOW,
  );
});
