import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A script that runs in a worker thread of the server. */
export interface WorkerScript {
  /** Its tsup entry: `dist/<name>.js` beside the server bundle. */
  name: string;
  /** Its source, relative to `src/`, bundled when the server runs from source (tests). */
  source: string;
  /** Imports left to an installed package, as specifier → the module's file URL. */
  external?: Record<string, string>;
}

/**
 * This module's folder: `dist/` in the published package (it is bundled there, beside the
 * worker scripts), `src/threads/` when the server runs from source.
 */
const here = dirname(fileURLToPath(import.meta.url));
/** `src/`, whose paths `WorkerScript.source` names (used when the server runs from source). */
const sourceRoot = join(here, '..');
const built = new Map<string, Promise<string>>();
let outDir: string | null = null;

/**
 * The path of a worker thread's script: prebuilt in `dist/` (the published package), or
 * bundled from source with esbuild once per process into a temporary folder that is
 * removed when the process exits.
 *
 * @example
 * new Worker(await workerScript({ name: 'pglite-thread', source: 'db/pglite-thread.ts' }));
 */
export function workerScript(script: WorkerScript): Promise<string> {
  let path = built.get(script.name);
  if (!path) {
    path = bundle(script);
    built.set(script.name, path);
    path.catch(() => built.delete(script.name));
  }
  return path;
}

async function bundle({ name, source, external = {} }: WorkerScript): Promise<string> {
  const prebuilt = join(here, `${name}.js`);
  if (existsSync(prebuilt)) return prebuilt;
  const entry = join(sourceRoot, source);
  if (!existsSync(entry)) throw new Error(`worker script ${name} not found`);
  if (!outDir) {
    const dir = mkdtempSync(join(tmpdir(), 'backend-workers-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    outDir = dir;
  }
  const outfile = join(outDir, `${name}.mjs`);
  const { build } = await import('esbuild');
  await build({
    entryPoints: [entry],
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outfile,
    logLevel: 'silent',
    plugins: [
      {
        name: 'installed-packages',
        setup(b) {
          for (const [specifier, file] of Object.entries(external)) {
            const filter = new RegExp(`^${specifier.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`);
            b.onResolve({ filter }, () => ({ path: file, external: true }));
          }
        },
      },
    ],
  });
  return outfile;
}
