/**
 * Export then import (issue 19) of a project with 100,000 rows and 1 GiB of stored objects,
 * next to what a person would otherwise do with the same data, in the same run:
 *  - anchor: `pg_dump | psql` of the same PostgreSQL database into an empty one, and that plus
 *    `cp -r` of the objects folder (pg_dump knows nothing of the stored files);
 *  - ours: `exportDirectory` (a folder export: dump + objects hard-linked, as the export
 *    folder is on the storage folder's file system) then `importDirectory` into another
 *    server database on the same cluster (goal: within 1.5× of the anchor); the tar (`exportArchive` / `importArchive`) is timed too, for
 *    information. Like the anchor's new database and absent folder, the target project is
 *    emptied (`db reset`, untimed) before each import, so neither side pays for removing
 *    the previous round's data.
 *
 * Every timed step starts from the same state, after `sync` (untimed) wrote back what earlier
 * steps left dirty. On a VM with free page reporting (as this project's machines are), a
 * step that writes into memory freed a moment before runs several times faster than one
 * that writes into memory the host has taken back since (a new 1 GiB file written by a
 * program: ~0.4 s against 2–5 s under load; `cp`, whose copy stays in the kernel, suffers
 * far less), so the order of the steps would decide the result. Two states, each for all
 * steps alike (BENCH_MEMORY, default both):
 *  - warm: 1.25 GiB of files are deleted just before the step (as on a machine whose free
 *    memory is simply free);
 *  - cold: a 5 s pause before the step, so freed memory has gone back to the host.
 * BENCH_ROUNDS rounds per state (default 3), anchor and ours in turn (which goes first
 * alternates); medians are compared. The copy thread's script is built before timing (the
 * published package ships it built).
 * The same export/import on embedded PGlite is printed for information.
 */
import { execFile, spawn } from 'node:child_process';
import { randomFillSync, randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, open, readdir, rm, stat } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import postgres from 'postgres';
import { exportArchive, importArchive } from '../src/data/archive';
import { exportDirectory, importDirectory } from '../src/data/directory';
import { resetDatabase } from '../src/data/reset';
import { platformScripts, type RunningServer, startServer } from '../src/server';
import { workerScript } from '../src/threads/worker-script';
import { findPgBin, startCluster } from '../test/support/postgres-cluster';

const ROWS = Number(process.env.BENCH_ROWS ?? 100_000);
const OBJECTS = Number(process.env.BENCH_OBJECTS ?? 64);
const OBJECT_SIZE = 16 * 1024 * 1024; // 64 × 16 MiB = 1 GiB
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
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

type Memory = 'warm' | 'cold';
const MEMORY = (process.env.BENCH_MEMORY ?? 'warm,cold').split(',') as Memory[];

/** Times `fn`, after bringing memory to the state `memory` (untimed, see above). */
async function timed<T>(
  memory: Memory,
  ballast: () => Promise<() => Promise<void>>,
  fn: () => Promise<T>,
): Promise<[number, T]> {
  if (memory === 'warm') {
    const free = await ballast();
    await run('sync');
    await free();
  } else {
    await run('sync');
    await new Promise((resolve) => setTimeout(resolve, 5000));
  }
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

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

export default async function bench() {
  const bin = findPgBin();
  const cluster = await startCluster();
  const work = await mkdtemp(join(tmpdir(), 'data-bench-'));
  const admin = postgres(cluster.url, { max: 1, onnotice: () => {} });
  const url = (db: string) => cluster.url.replace(/\/postgres$/, `/${db}`);
  const servers: RunningServer[] = [];
  try {
    for (const db of ['bench_src', 'bench_dst']) await admin.unsafe(`create database ${db}`);
    const source = await startServer({
      port: 0,
      databaseUrl: url('bench_src'),
      dataDir: join(work, 'src'),
    });
    servers.push(source);
    const t0 = performance.now();
    await seed(source);
    console.log(
      `seeded ${ROWS} rows and ${OBJECTS} × 16 MiB objects in ${seconds(performance.now() - t0)}`,
    );
    const target = await startServer({
      port: 0,
      databaseUrl: url('bench_dst'),
      dataDir: join(work, 'dst'),
    });
    servers.push(target);
    await workerScript({ name: 'copy-thread', source: 'data/copy-thread.ts' });
    const file = join(work, 'project.tar');
    const folder = join(work, 'project');
    const objectFiles = await listFiles(join(source.storageDir, 'objects'));
    /** 1.25 GiB of copies of the objects (made in the kernel), and a function deleting them. */
    const ballast = async () => {
      const dir = join(work, 'ballast');
      await mkdir(dir, { recursive: true });
      const count = Math.ceil((objectFiles.length * 5) / 4);
      for (let i = 0; i < count; i += 1) {
        await copyFile(objectFiles[i % objectFiles.length] as string, join(dir, String(i)));
      }
      return () => rm(dir, { recursive: true, force: true });
    };

    /** pg_dump | psql into a new database, then a copy of the objects folder. */
    const anchor = async (memory: Memory) => {
      await admin.unsafe('drop database if exists bench_anchor');
      await admin.unsafe('create database bench_anchor');
      await rm(join(work, 'anchor-objects'), { recursive: true, force: true });
      const [dumpMs] = await timed(memory, ballast, () =>
        pipe(join(bin, 'pg_dump'), ['--no-owner', url('bench_src')], join(bin, 'psql'), [
          '-q',
          '-X',
          '-v',
          'ON_ERROR_STOP=1',
          url('bench_anchor'),
        ]),
      );
      const [cpMs] = await timed(memory, ballast, () =>
        run('cp', ['-r', join(source.storageDir, 'objects'), join(work, 'anchor-objects')]),
      );
      return { dumpMs, cpMs };
    };
    /** The target project emptied (untimed), as the anchor's new database and folder are. */
    const fresh = () =>
      resetDatabase(target.db, { platformSql: platformScripts(), storageDir: target.storageDir });
    /** Our export, then our import into the other server's database: a folder, then a tar. */
    const ours = async (memory: Memory) => {
      await rm(folder, { recursive: true, force: true });
      const [exportMs] = await timed(memory, ballast, () =>
        exportDirectory(source.db, source.storageDir, folder),
      );
      await fresh();
      const [importMs] = await timed(memory, ballast, () =>
        importDirectory(target.db, target.storageDir, folder, platformScripts()),
      );
      await rm(file, { force: true });
      const [tarExportMs] = await timed(memory, ballast, () =>
        exportArchive(source.db, source.storageDir, file),
      );
      await fresh();
      const [tarImportMs] = await timed(memory, ballast, () =>
        importArchive(target.db, target.storageDir, file, platformScripts()),
      );
      return { exportMs, importMs, tarExportMs, tarImportMs };
    };

    const results: { memory: Memory; rounds: Round[] }[] = [];
    for (const memory of MEMORY) {
      const rounds: Round[] = [];
      for (let r = 0; r < ROUNDS; r += 1) {
        const anchorFirst = r % 2 === 0;
        const a = anchorFirst ? await anchor(memory) : null;
        const o = await ours(memory);
        const round = { ...(a ?? (await anchor(memory))), ...o };
        rounds.push(round);
        console.log(
          `${memory} round ${r + 1} (${anchorFirst ? 'anchor first' : 'ours first'}): pg_dump | psql ${seconds(round.dumpMs)}, cp -r ${seconds(round.cpMs)}; export ${seconds(round.exportMs)}, import ${seconds(round.importMs)}; ratio ${((round.exportMs + round.importMs) / (round.dumpMs + round.cpMs)).toFixed(2)}× (tar: ${seconds(round.tarExportMs)} + ${seconds(round.tarImportMs)})`,
        );
      }
      results.push({ memory, rounds });
    }
    const check = await target.db.query<{ n: number }>(
      'select count(*)::int as n from public.items',
    );
    const stored = await target.db.query<{ n: number }>(
      `select count(*)::int as n from storage.objects where bucket_id = 'bench'`,
    );
    const archiveMb = (await stat(file)).size / 1024 / 1024;
    console.log(
      `load average now: ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    console.log(
      `PostgreSQL 15, ${ROWS} rows + 1 GiB of objects (${stored.rows[0]?.n} objects, archive ${archiveMb.toFixed(0)} MB; rows after import: ${check.rows[0]?.n}), medians of ${ROUNDS} rounds:`,
    );
    for (const { memory, rounds } of results) report(memory, rounds);

    // For information: the same folder export through embedded PGlite.
    const lite = await startServer({ port: 0, dataDir: join(work, 'lite') });
    servers.push(lite);
    const memory = MEMORY[0] ?? 'warm';
    const [liteImportMs] = await timed(memory, ballast, () =>
      importDirectory(lite.db, lite.storageDir, folder, platformScripts()),
    );
    const [liteExportMs] = await timed(memory, ballast, () =>
      exportDirectory(lite.db, lite.storageDir, join(work, 'lite-export')),
    );
    console.log(
      `PGlite (information, ${memory}): import ${seconds(liteImportMs)}, export ${seconds(liteExportMs)}`,
    );
  } finally {
    for (const server of servers) await server.stop().catch(() => {});
    await admin.end();
    cluster.stop();
    await rm(work, { recursive: true, force: true });
  }
}

interface Round {
  dumpMs: number;
  cpMs: number;
  exportMs: number;
  importMs: number;
  tarExportMs: number;
  tarImportMs: number;
}

function report(memory: Memory, rounds: Round[]): void {
  const dumpMs = median(rounds.map((r) => r.dumpMs));
  const anchorMs = median(rounds.map((r) => r.dumpMs + r.cpMs));
  const oursMs = median(rounds.map((r) => r.exportMs + r.importMs));
  console.log(`  ${memory} memory:`);
  console.log(`    anchor: pg_dump | psql                    ${seconds(dumpMs)}`);
  console.log(`    anchor: pg_dump | psql + cp -r objects    ${seconds(anchorMs)}`);
  console.log(
    `    ours (folder): export ${seconds(median(rounds.map((r) => r.exportMs)))} + import ${seconds(median(rounds.map((r) => r.importMs)))}; together ${seconds(oursMs)}`,
  );
  const tarMs = median(rounds.map((r) => r.tarExportMs + r.tarImportMs));
  console.log(
    `    tar (information): export ${seconds(median(rounds.map((r) => r.tarExportMs)))} + import ${seconds(median(rounds.map((r) => r.tarImportMs)))}; together ${seconds(tarMs)}, ${(tarMs / anchorMs).toFixed(2)}× the anchor`,
  );
  console.log(
    `    ratio to pg_dump | psql + cp -r: ${(oursMs / anchorMs).toFixed(2)}× (goal ≤ 1.5×); to pg_dump | psql alone: ${(oursMs / dumpMs).toFixed(2)}×`,
  );
}

async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await listFiles(path)));
    else out.push(path);
  }
  return out;
}
