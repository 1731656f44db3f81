import { randomBytes } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { appendFile, open, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportArchive, importArchive } from '../../src/data/archive';
import { exportProject, importProject } from '../../src/data/portable';
import { DataError } from '../../src/data/restore';
import { type TarEntry, TarReader, TarWriter } from '../../src/data/tar';
import { platformScripts, type RunningServer } from '../../src/server';
import { databaseKind, startTestServer } from '../support/server';
import {
  DRIVE,
  objectSums,
  SAMPLE_OBJECTS,
  snapshotRows,
  storeObjects,
  TRICKY_SQL,
} from './support';

const root = mkdtempSync(join(tmpdir(), 'bad-archive-'));
let server: RunningServer;
let good: string;
let goodFolder: string;
let before: Record<string, string[]>;
let sums: Record<string, string>;

beforeAll(async () => {
  server = await startTestServer({ dataDir: join(root, 'data'), ...DRIVE });
  sums = await storeObjects(server, SAMPLE_OBJECTS());
  await server.db.exec(TRICKY_SQL);
  await server.db.exec(
    `create table public.marker (note text); insert into public.marker values ('still here');`,
  );
  good = join(root, 'good.tar');
  await exportArchive(server.db, server.storageDir, good);
  goodFolder = join(root, 'good-folder');
  await exportProject(server.db, server.storageDir, goodFolder);
  before = await snapshotRows(server);
}, 120_000);
afterAll(async () => {
  await server?.stop();
  rmSync(root, { recursive: true, force: true });
});

/** Imports `file` expecting a clear error, then checks that nothing changed. */
async function refused(file: string, message: RegExp) {
  const error = await importProject(server.db, server.storageDir, file, platformScripts()).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DataError);
  expect((error as Error).message).toMatch(message);
  expect(await snapshotRows(server)).toEqual(before);
  const marker = await server.db.query('select note from public.marker');
  expect(marker.rows).toEqual([{ note: 'still here' }]);
  expect(await objectSums(server, Object.keys(sums))).toEqual(sums);
  // No staging folder is left behind.
  expect(readdirSync(server.storageDir).filter((n) => n.startsWith('.'))).toEqual([]);
}

/** The entries of a tar file, read through its headers. */
async function entries(path: string): Promise<TarEntry[]> {
  const handle = await open(path, 'r');
  try {
    const reader = new TarReader(handle, (await handle.stat()).size);
    const out: TarEntry[] = [];
    for (let e = await reader.next(); e; e = await reader.next()) out.push(e);
    return out;
  } finally {
    await handle.close();
  }
}

/** A tar with the given entries. */
async function tarOf(name: string, entries: [string, string | Uint8Array][]): Promise<string> {
  const path = join(root, name);
  const handle = await open(path, 'w');
  const tar = new TarWriter(handle);
  for (const [entry, content] of entries) {
    await tar.add(entry, [typeof content === 'string' ? Buffer.from(content) : content]);
  }
  await tar.finish();
  await handle.close();
  return path;
}

describe(`bad archives change nothing (${databaseKind()})`, () => {
  it('refuses a file that does not exist', async () => {
    await refused(join(root, 'missing.tar'), /does not exist/);
  });

  it('refuses a file that is not a tar', async () => {
    const path = join(root, 'random.bin');
    await writeFile(path, randomBytes(4096));
    await refused(path, /not a backend-server archive \(not a tar file\)/);
    const empty = join(root, 'empty.tar');
    await writeFile(empty, '');
    await refused(empty, /not a backend-server archive/);
  });

  it('refuses a foreign tar', async () => {
    const path = await tarOf('foreign.tar', [['README.md', '# hello']]);
    await refused(path, /not a backend-server archive \(no manifest.json first\)/);
    const other = await tarOf('other-manifest.tar', [
      ['manifest.json', '{"name":"something else"}'],
    ]);
    await refused(other, /not a backend-server archive \(it is a tar of something else\)/);
  });

  it('refuses an archive of another format version', async () => {
    const manifest = JSON.parse(
      (await readFile(good))
        .subarray(512, 512 + 4096)
        .toString('utf8')
        .split('\0')[0] as string,
    );
    const path = await tarOf('v99.tar', [
      ['manifest.json', JSON.stringify({ ...manifest, version: 99 })],
    ]);
    await refused(path, /format version 99; this server reads version 1/);
  });

  it('refuses a damaged archive (one byte changed in an object)', async () => {
    const bytes = await readFile(good);
    // Change a byte in the middle of the largest object.
    const biggest = (await entries(good)).sort((a, b) => b.size - a.size)[0] as TarEntry;
    expect(biggest.name).toMatch(/^objects\//);
    const at = biggest.offset + Math.floor(biggest.size / 2);
    bytes[at] = (bytes[at] ?? 0) ^ 0xff;
    const path = join(root, 'damaged.tar');
    await writeFile(path, bytes);
    await refused(path, /damaged: objects\/[0-9a-f-]+ does not match its checksum/);
  });

  it('refuses a damaged header and a truncated archive', async () => {
    const bytes = await readFile(good);
    const header = Buffer.from(bytes);
    const second = (await entries(good))[1] as TarEntry;
    header[second.offset - 512 + 3] = (header[second.offset - 512 + 3] ?? 0) ^ 0x20; // a letter of its name
    const headerPath = join(root, 'header.tar');
    await writeFile(headerPath, header);
    await refused(headerPath, /damaged: damaged entry header at byte \d+/);
    const cut = join(root, 'cut.tar');
    await writeFile(cut, bytes);
    await truncate(cut, Math.floor(bytes.length / 2));
    await refused(cut, /ends in the middle|cut short/);
    const noChecksums = join(root, 'no-checksums.tar');
    await writeFile(noChecksums, bytes);
    // Drop checksums.json and the end marker: the last 3 blocks of the file and more.
    await truncate(noChecksums, bytes.length - 2048);
    await refused(noChecksums, /ends in the middle|cut short|checksums/);
  });

  it('refuses an archive whose database does not load, and names the reason', async () => {
    const manifest = {
      format: 'backend-server-archive',
      version: 1,
      createdAt: new Date().toISOString(),
      source: { database: 'pglite', serverVersion: '18' },
      database: { file: 'database.sql', bytes: 0, tables: 0, rows: 0 },
      objects: { count: 0, bytes: 0 },
    };
    const sql =
      '-- not ours\ncreate table public.half_done (id int);\nselect * from no_such_table;\n';
    const { crc32 } = await import('node:zlib');
    const path = await tarOf('bad-sql.tar', [
      ['manifest.json', JSON.stringify(manifest)],
      ['database.sql', sql],
      ['checksums.json', JSON.stringify({ 'database.sql': crc32(Buffer.from(sql)) })],
    ]);
    await refused(path, /could not be loaded: .*no_such_table/);
    const halfDone = await server.db.query(`select to_regclass('public.half_done') as t`);
    expect(halfDone.rows).toEqual([{ t: null }]);
  });

  it('still imports the good archive afterwards', async () => {
    await importArchive(server.db, server.storageDir, good, platformScripts());
    const after = await snapshotRows(server);
    expect(after).toEqual(before);
  });
});

/** A copy of the good folder export, changed by `change` (given the copy and its manifest). */
async function folderOf(
  name: string,
  change: (dir: string, manifest: FolderManifest) => Promise<void> | void,
): Promise<string> {
  const dir = join(root, name);
  cpSync(goodFolder, dir, { recursive: true });
  const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as FolderManifest;
  await change(dir, manifest);
  return dir;
}

interface FolderManifest {
  version: number;
  format: string;
  database: { bytes: number; crc32: number };
  objects: { count: number; list: { version: string; size: number }[] };
}

const writeManifest = (dir: string, manifest: object) =>
  writeFile(join(dir, 'manifest.json'), JSON.stringify(manifest));
/** The largest object of a folder export, as its path inside the folder. */
const largest = (manifest: FolderManifest) => {
  const o = [...manifest.objects.list].sort((a, b) => b.size - a.size)[0] as { version: string };
  return join('objects', o.version.slice(0, 2), o.version);
};

describe(`bad folder exports change nothing (${databaseKind()})`, () => {
  it('refuses a foreign folder, a foreign manifest and another format version', async () => {
    const foreign = join(root, 'foreign-folder');
    mkdirSync(foreign);
    await writeFile(join(foreign, 'notes.txt'), 'mine');
    await refused(foreign, /foreign-folder is not a backend-server export \(no manifest.json\)/);
    const other = await folderOf('other-folder', (dir) =>
      writeManifest(dir, { name: 'something else' }),
    );
    await refused(other, /not a backend-server archive \(it is a folder of something else\)/);
    const v99 = await folderOf('v99-folder', (dir, m) => writeManifest(dir, { ...m, version: 99 }));
    await refused(v99, /format version 99; this server reads version 1/);
    // A tar's manifest (no object list) in a folder.
    const tarManifest = await folderOf('tar-manifest', (dir, m) =>
      writeManifest(dir, { format: m.format, version: m.version }),
    );
    await refused(tarManifest, /tar-manifest is damaged: manifest.json is not a folder export's/);
  });

  it('refuses a missing object and an object of another size', async () => {
    const missing = await folderOf('missing-object', (dir, m) => rm(join(dir, largest(m))));
    await refused(
      missing,
      /missing-object is damaged: objects\/[0-9a-f]{2}\/[0-9a-f-]+ is missing/,
    );
    const longer = await folderOf('longer-object', (dir, m) =>
      appendFile(join(dir, largest(m)), 'x'),
    );
    await refused(longer, /damaged: objects\/\S+ has \d+ bytes, manifest.json says \d+/);
  });

  it('refuses a truncated or changed database.sql', async () => {
    const cut = await folderOf('cut-sql', async (dir, m) => {
      await truncate(join(dir, 'database.sql'), Math.floor(m.database.bytes / 2));
    });
    await refused(cut, /cut-sql is damaged: database.sql has \d+ bytes, manifest.json says \d+/);
    // Cut short and the manifest's size changed to match: the checksum still tells.
    const cutAndSized = await folderOf('cut-sql-sized', async (dir, m) => {
      const size = Math.floor(m.database.bytes / 2);
      await truncate(join(dir, 'database.sql'), size);
      await writeManifest(dir, { ...m, database: { ...m.database, bytes: size } });
    });
    await refused(cutAndSized, /damaged: database.sql does not match its checksum/);
  });

  it('refuses unexpected files and links, even to files that look right', async () => {
    const extra = await folderOf('extra-file', (dir) =>
      writeFile(join(dir, 'objects', 'x.txt'), 'x'),
    );
    await refused(extra, /extra-file is damaged: unexpected entry objects\/x.txt/);
    const linked = await folderOf('linked-object', async (dir, m) => {
      const path = join(dir, largest(m));
      const outside = join(root, 'outside.bin');
      cpSync(path, outside);
      await rm(path);
      symlinkSync(outside, path);
    });
    await refused(linked, /linked-object is damaged: unexpected entry objects\/\S+/);
    const unlisted = await folderOf('unlisted-object', (dir, m) =>
      writeManifest(dir, {
        ...m,
        objects: { ...m.objects, count: m.objects.count - 1, list: m.objects.list.slice(1) },
      }),
    );
    await refused(unlisted, /unlisted-object is damaged: unexpected entry objects\//);
  });

  it('refuses to export into a folder that is not an export, or onto a file', async () => {
    const mine = join(root, 'my-folder');
    mkdirSync(mine);
    await writeFile(join(mine, 'thesis.md'), 'years of work');
    const error = await exportProject(server.db, server.storageDir, mine).catch((e: Error) => e);
    expect(error).toBeInstanceOf(DataError);
    expect((error as Error).message).toMatch(
      /my-folder is a folder that is not a backend-server export/,
    );
    expect(readdirSync(mine)).toEqual(['thesis.md']);
    const file = join(root, 'a-file');
    await writeFile(file, 'data');
    const onFile = await exportProject(server.db, server.storageDir, file).catch((e: Error) => e);
    expect((onFile as Error).message).toMatch(/a-file exists and is not a folder/);
    expect(await readFile(file, 'utf8')).toBe('data');
    // Nothing half written is left beside them.
    expect(readdirSync(root).filter((n) => n.endsWith('.partial') || n.endsWith('.old'))).toEqual(
      [],
    );
  });

  it('replaces an earlier folder export, and still imports the good one', async () => {
    const again = await folderOf('again', () => {});
    await server.db.exec(`insert into public.marker values ('exported again')`);
    await exportProject(server.db, server.storageDir, again);
    await server.db.exec(`delete from public.marker where note = 'exported again'`);
    await importProject(server.db, server.storageDir, again, platformScripts());
    const marker = await server.db.query('select note from public.marker order by note');
    expect(marker.rows).toEqual([{ note: 'exported again' }, { note: 'still here' }]);
    await importProject(server.db, server.storageDir, goodFolder, platformScripts());
    expect(await snapshotRows(server)).toEqual(before);
    expect(await objectSums(server, Object.keys(sums))).toEqual(sums);
  });
});
