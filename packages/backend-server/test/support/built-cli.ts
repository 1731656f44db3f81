/**
 * The CLI as the published package runs it, for the tests that spawn it: `src/` built with the
 * package's own tsup config (JavaScript only, the worker threads' scripts beside it) into
 * `.artifacts/cli-<hash>/`, where the hash covers every source file's path, size and mtime.
 *
 * A spawn of the built CLI starts in about a second; from source (`--import tsx`) it took
 * 2.5 s, and each process bundled its worker scripts again. The first caller of a run builds
 * (under a lock folder, so parallel test files build once); later callers, and later runs on
 * unchanged sources, find it built.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const PACKAGE = join(import.meta.dirname, '..', '..');
const ARTIFACTS = join(PACKAGE, '.artifacts');
const LOCK_STALE_MS = 180_000;

async function sourceHash(): Promise<string> {
  const hash = createHash('sha1');
  const visit = async (dir: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await visit(path);
      else {
        const info = await stat(path);
        hash.update(`${path}\0${info.size}\0${info.mtimeMs}\n`);
      }
    }
  };
  await visit(join(PACKAGE, 'src'));
  for (const file of ['tsup.config.ts', 'package.json']) {
    const info = await stat(join(PACKAGE, file));
    hash.update(`${file}\0${info.size}\0${info.mtimeMs}\n`);
  }
  return hash.digest('hex').slice(0, 12);
}

function tsup(outDir: string): Promise<void> {
  const pkg = createRequire(import.meta.url).resolve('tsup/package.json');
  const bin = join(dirname(pkg), 'dist', 'cli-default.js');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, '--no-dts', '--silent', '--out-dir', outDir], {
      cwd: PACKAGE,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d) => {
      err += d;
    });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`tsup exited ${code}: ${err}`)),
    );
  });
}

let pending: Promise<string> | null = null;

/** The path of the built `cli.js` for the current sources; builds it when missing. */
export function builtCli(): Promise<string> {
  if (!pending) {
    pending = ensureBuilt();
    // A failed build is tried again by the next caller.
    pending.catch(() => {
      pending = null;
    });
  }
  return pending;
}

async function ensureBuilt(): Promise<string> {
  const dir = join(ARTIFACTS, `cli-${await sourceHash()}`);
  const entry = join(dir, 'cli.js');
  const lock = `${dir}.lock`;
  await mkdir(ARTIFACTS, { recursive: true });
  for (;;) {
    if (existsSync(entry)) return entry;
    try {
      await mkdir(lock);
      break;
    } catch {
      // Another test file builds it: wait, unless its build died long ago.
      const info = await stat(lock).catch(() => null);
      if (info && Date.now() - info.mtimeMs > LOCK_STALE_MS) await rm(lock, { recursive: true });
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  try {
    if (existsSync(entry)) return entry;
    const temporary = `${dir}.tmp`;
    await rm(temporary, { recursive: true, force: true });
    await tsup(temporary);
    await rename(temporary, dir);
    // Builds of earlier sources are of no further use.
    for (const name of await readdir(ARTIFACTS)) {
      if (/^cli-[0-9a-f]{12}$/.test(name) && join(ARTIFACTS, name) !== dir)
        await rm(join(ARTIFACTS, name), { recursive: true, force: true });
    }
    return entry;
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}
