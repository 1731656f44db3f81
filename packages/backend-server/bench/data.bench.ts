/**
 * Export then import (issue 19) of a project with 100,000 rows and 1 GiB of stored objects,
 * next to what a person would otherwise do with the same data, in the same run:
 *  - anchor: `pg_dump | psql` of the same PostgreSQL database into an empty one, and that plus
 *    `cp -r` of the objects folder (pg_dump knows nothing of the stored files);
 *  - ours: `exportArchive` (one tar: dump + objects) then `importArchive` into a fresh
 *    server database on the same cluster (goal: within 1.5× of the anchor).
 * The same export/import on embedded PGlite is printed for information.
 */
import { execFile, spawn } from 'node:child_process';
import { randomFillSync, randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { mkdtemp, open, rm, stat } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import postgres from 'postgres';
import { exportArchive, importArchive } from '../src/data/archive';
import { platformScripts, type RunningServer, startServer } from '../src/server';
import { findPgBin, startCluster } from '../test/support/postgres-cluster';

const ROWS = Number(process.env.BENCH_ROWS ?? 100_000);
const OBJECTS = Number(process.env.BENCH_OBJECTS ?? 64);
const OBJECT_SIZE = 16 * 1024 * 1024; // 64 × 16 MiB = 1 GiB
const run = promisify(execFile);
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

/** 100,000 rows in an app table, and 1 GiB of objects (rows in storage.objects, bytes on disk). */
async function seed(server: RunningServer): Promise<void> {
  await server.db.exec(`
    create table public.items (
      id bigint primary key, name text not null, price numeric(10, 2), tags text[],
      payload jsonb, created_at timestamptz not null default now()
    );
    insert into public.items (id, name, price, tags, payload)
      select g, 'item ' || g, (g % 1000) / 10.0, array['a' || (g % 7), 'b' || (g % 11)],
             jsonb_build_object('n', g, 'text', repeat('x', 40))
      from generate_series(1, ${ROWS}) g;
    create index items_name on public.items (name);
    insert into storage.buckets (id, name) values ('bench', 'bench');
  `);
  const buffer = Buffer.allocUnsafe(OBJECT_SIZE);
  for (let i = 0; i < OBJECTS; i += 1) {
    const version = randomUUID();
    const dir = join(server.storageDir, 'objects', version.slice(0, 2));
    mkdirSync(dir, { recursive: true });
    randomFillSync(buffer);
    const file = await open(join(dir, version), 'w');
    await file.writeFile(buffer);
    await file.close();
    await server.db.query(
      `insert into storage.objects (bucket_id, name, version, metadata)
       values ('bench', $1, $2, jsonb_build_object('size', $3::bigint, 'mimetype', 'application/octet-stream'))`,
      [`blobs/${i}.bin`, version, OBJECT_SIZE],
    );
  }
}

async function timed<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const t0 = performance.now();
  const value = await fn();
  return [performance.now() - t0, value];
}

function pipe(dump: string, dumpArgs: string[], psql: string, psqlArgs: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const a = spawn(dump, dumpArgs, { stdio: ['ignore', 'pipe', 'inherit'] });
    const b = spawn(psql, psqlArgs, { stdio: ['pipe', 'ignore', 'inherit'] });
    a.stdout.pipe(b.stdin);
    let left = 2;
    const done = (code: number | null) => {
      if (code !== 0) reject(new Error(`exit ${code}`));
      else if (--left === 0) resolve();
    };
    a.on('exit', done);
    b.on('exit', done);
  });
}

export default async function bench() {
  const bin = findPgBin();
  const cluster = await startCluster();
  const work = await mkdtemp(join(tmpdir(), 'data-bench-'));
  const admin = postgres(cluster.url, { max: 1, onnotice: () => {} });
  const url = (db: string) => cluster.url.replace(/\/postgres$/, `/${db}`);
  try {
    for (const db of ['bench_src', 'bench_anchor', 'bench_dst'])
      await admin.unsafe(`create database ${db}`);
    const source = await startServer({
      port: 0,
      databaseUrl: url('bench_src'),
      dataDir: join(work, 'src'),
    });
    const t0 = performance.now();
    await seed(source);
    console.log(
      `seeded ${ROWS} rows and ${OBJECTS} × 16 MiB objects in ${seconds(performance.now() - t0)}`,
    );

    // Anchor: pg_dump | psql, then a copy of the objects folder.
    const [dumpMs] = await timed(() =>
      pipe(join(bin, 'pg_dump'), ['--no-owner', url('bench_src')], join(bin, 'psql'), [
        '-q',
        '-X',
        '-v',
        'ON_ERROR_STOP=1',
        url('bench_anchor'),
      ]),
    );
    console.log(`anchor pg_dump | psql: ${seconds(dumpMs)}`);
    const [cpMs] = await timed(() =>
      run('cp', ['-r', join(source.storageDir, 'objects'), join(work, 'anchor-objects')]),
    );

    // Ours: export, then import into a fresh server database.
    console.log(`cp: ${seconds(cpMs)}`);
    const file = join(work, 'project.tar');
    const [exportMs, summary] = await timed(() =>
      exportArchive(source.db, source.storageDir, file),
    );
    await source.stop();
    const target = await startServer({
      port: 0,
      databaseUrl: url('bench_dst'),
      dataDir: join(work, 'dst'),
    });
    const [importMs] = await timed(() =>
      importArchive(target.db, target.storageDir, file, platformScripts()),
    );
    const check = await target.db.query<{ n: number }>(
      'select count(*)::int as n from public.items',
    );
    await target.stop();
    const archiveMb = (await stat(file)).size / 1024 / 1024;

    const anchor = dumpMs + cpMs;
    console.log(
      `load average now: ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    const ours = exportMs + importMs;
    console.log(
      `PostgreSQL 15, ${ROWS} rows + 1 GiB of objects (${summary.objects} objects, archive ${archiveMb.toFixed(0)} MB):`,
    );
    console.log(`  anchor: pg_dump | psql                    ${seconds(dumpMs)}`);
    console.log(`  anchor: pg_dump | psql + cp -r objects    ${seconds(anchor)}`);
    console.log(
      `  export ${seconds(exportMs)} + import ${seconds(importMs)} = ${seconds(ours)}  (rows after import: ${check.rows[0]?.n})`,
    );
    console.log(
      `  ratio to pg_dump | psql + cp -r: ${(ours / anchor).toFixed(2)}× (goal ≤ 1.5×); to pg_dump | psql alone: ${(ours / dumpMs).toFixed(2)}×`,
    );

    // For information: the same archive through embedded PGlite.
    const lite = await startServer({ port: 0, dataDir: join(work, 'lite') });
    const [liteImportMs] = await timed(() =>
      importArchive(lite.db, lite.storageDir, file, platformScripts()),
    );
    const [liteExportMs] = await timed(() =>
      exportArchive(lite.db, lite.storageDir, join(work, 'lite.tar')),
    );
    await lite.stop();
    console.log(
      `PGlite (information): import ${seconds(liteImportMs)}, export ${seconds(liteExportMs)}`,
    );
  } finally {
    await admin.end();
    cluster.stop();
    await rm(work, { recursive: true, force: true });
  }
}
