import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { isBuiltin } from 'node:module';
import { dirname, extname, isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { build as esbuildBuild, Loader, Plugin } from 'esbuild';
import { type ImportMap, importMapFiles, loadImportMaps, mapSpecifier } from './import-map';
import { planSpecifier, STD_HTTP_SHIM } from './specifiers';

/** One compiled version of a function. */
export interface Build {
  name: string;
  entry: string;
  dir: string;
  /** file:// URL of the bundle in the cache dir. */
  bundleUrl: string;
  /** The function's own source files (not node_modules) and their stamps. */
  inputs: Map<string, string>;
}

/**
 * Raised when a function cannot be compiled (syntax error, unresolvable import, …). The
 * message (with file paths) is for the server log; `hint`, when there is one, is safe to
 * show the client (it names the missing packages and how to install them).
 */
export class CompileError extends Error {
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}

/**
 * How to install the package an import names, for the client: `npm install name@range`
 * (`npx jsr add @scope/name` for `jsr:`), run where the functions' node_modules belongs.
 */
export function installHint(from: string): string {
  const spec = from
    .replace(/^(npm|jsr):/, '')
    .replace(/^https?:\/\/[^/]+\/(?:npm\/|stable\/|v\d+\/)?/, '');
  const match = /^\/?((@[^/@]+\/[^/@]+|[^/@]+)(@[^/]*)?)/.exec(spec);
  const name = match?.[2] ?? spec;
  const install = from.startsWith('jsr:')
    ? `npx jsr add ${match?.[1] ?? spec}`
    : `npm install ${match?.[1] ?? spec}`;
  return `package "${name}" is not installed: run \`${install}\` in the folder holding the functions (or a folder above it, with its package.json)`;
}

const SKIP = { skipSpecifierPlugin: true };
const VIRTUAL = 'functions-virtual';
const LOADERS: Record<string, Loader> = {
  '.ts': 'ts',
  '.mts': 'ts',
  '.cts': 'ts',
  '.tsx': 'tsx',
  '.js': 'js',
  '.mjs': 'js',
  '.cjs': 'js',
  '.jsx': 'jsx',
};

/**
 * A file's change stamp. Synchronous on purpose: a handful of stats of local files per
 * call cost microseconds, less than a trip through the thread pool.
 */
export function stamp(path: string): string {
  const s = statSync(path, { throwIfNoEntry: false });
  return s ? `${s.mtimeMs}:${s.size}:${s.ino}` : 'missing';
}

/**
 * Import maps first (deno.json / import_map.json), then the hosted runtime's specifiers
 * (see specifiers.ts), packages left external and imported
 * by Node from their installed location (so their own `import.meta.url`, wasm and native
 * files keep working), and `import.meta.url|filename|dirname|main` of the function's own
 * files pointing at the original files rather than the bundle.
 */
function functionPlugin(entry: string, maps: ImportMap[], missing: Set<string>): Plugin {
  return {
    name: 'functions',
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, async (args) => {
        if (args.pluginData?.skipSpecifierPlugin || isBuiltin(args.path)) return undefined;
        const mapped = mapSpecifier(args.path, maps);
        if (mapped && isAbsolute(mapped)) {
          return b.resolve(mapped, {
            kind: args.kind,
            resolveDir: args.resolveDir,
            importer: args.importer,
            pluginData: SKIP,
          });
        }
        const plan = planSpecifier(mapped ?? args.path);
        if (plan.kind === 'empty' || plan.kind === 'std-http') {
          return { path: plan.kind, namespace: VIRTUAL };
        }
        if (plan.kind === 'error') return { errors: [{ text: plan.message }] };
        const specifier = plan.kind === 'package' ? plan.specifier : (mapped ?? args.path);
        if (isBuiltin(specifier)) return { path: specifier, external: true };
        const found = await b.resolve(specifier, {
          kind: args.kind,
          resolveDir: args.resolveDir,
          importer: args.importer,
          pluginData: SKIP,
        });
        if (found.errors.length > 0) {
          const from = plan.kind === 'package' ? plan.from : args.path;
          missing.add(installHint(from));
          return {
            errors: [
              {
                text: `cannot resolve "${from}": the package "${specifier}" is not installed in a node_modules folder above the function (npm:, jsr: and URL imports are not fetched by this server)`,
              },
            ],
          };
        }
        if (found.external || !found.path.includes('/node_modules/')) return found;
        return { path: pathToFileURL(found.path).href, external: true };
      });
      b.onLoad({ filter: /.*/, namespace: VIRTUAL }, (args) => ({
        contents: args.path === 'std-http' ? STD_HTTP_SHIM : 'export {};',
        loader: 'js',
      }));
      b.onLoad({ filter: /\.[cm]?[jt]sx?$/ }, async (args) => {
        if (args.path.includes('/node_modules/')) return undefined;
        const text = await readFile(args.path, 'utf8');
        if (!text.includes('import.meta')) return undefined;
        const values: Record<string, string> = {
          url: JSON.stringify(pathToFileURL(args.path).href),
          filename: JSON.stringify(args.path),
          dirname: JSON.stringify(dirname(args.path)),
          main: String(args.path === entry),
        };
        return {
          contents: text.replace(
            /\bimport\.meta\.(url|filename|dirname|main)\b/g,
            (_, key: string) => values[key] ?? _,
          ),
          loader: LOADERS[extname(args.path)] ?? 'ts',
        };
      });
    },
  };
}

/**
 * Compiles functions with esbuild (TypeScript, the function's relative imports bundled)
 * into a cache dir, and recompiles when one of the function's source files changes
 * (checked per call by stamp: mtime, size, inode).
 */
export class Compiler {
  private readonly builds = new Map<string, Build>();
  private readonly pending = new Map<string, Promise<Build>>();

  constructor(
    private readonly cacheDir: string,
    private readonly functionsDir: string,
  ) {}

  /** The current build of a function: the cached one when its files did not change. */
  async current(name: string, entry: string): Promise<Build> {
    const running = this.pending.get(name);
    if (running) return running;
    const cached = this.builds.get(name);
    if (cached && cached.entry === entry && this.fresh(cached)) return cached;
    const next = this.compile(name, entry).finally(() => this.pending.delete(name));
    this.pending.set(name, next);
    return next;
  }

  private fresh(cached: Build): boolean {
    for (const [path, was] of cached.inputs) if (stamp(path) !== was) return false;
    return true;
  }

  private async compile(name: string, entry: string): Promise<Build> {
    const dir = dirname(entry);
    const mapFiles = importMapFiles(this.functionsDir, dir);
    let maps: ImportMap[];
    try {
      maps = loadImportMaps(mapFiles);
    } catch (error) {
      throw new CompileError((error as Error).message);
    }
    const missing = new Set<string>();
    let result: Awaited<ReturnType<typeof esbuildBuild<{ metafile: true; write: false }>>>;
    try {
      // Loaded on the first compile: servers that never run a function skip esbuild.
      const { build } = await import('esbuild');
      result = await build({
        entryPoints: [entry],
        bundle: true,
        write: false,
        format: 'esm',
        platform: 'node',
        target: 'node20',
        outfile: join(this.cacheDir, `${name}.mjs`),
        absWorkingDir: dir,
        metafile: true,
        sourcemap: 'inline',
        logLevel: 'silent',
        plugins: [functionPlugin(entry, maps, missing)],
      });
    } catch (error) {
      const errors = (
        error as { errors?: { text: string; location?: { file: string; line: number } | null }[] }
      ).errors;
      const text = errors?.length
        ? errors
            .map((e) => (e.location ? `${e.location.file}:${e.location.line}: ${e.text}` : e.text))
            .join('\n')
        : String(error);
      throw new CompileError(text, missing.size > 0 ? [...missing].join('; ') : undefined);
    }
    const output = result.outputFiles[0];
    if (!output) throw new CompileError('esbuild produced no output');
    const hash = createHash('sha1').update(output.contents).digest('hex').slice(0, 12);
    const bundlePath = join(this.cacheDir, `${name}-${hash}.mjs`);
    await writeFile(bundlePath, output.contents);
    const inputs = new Map<string, string>();
    for (const key of Object.keys(result.metafile.inputs)) {
      if (key.includes(':') && !key.startsWith('/')) continue; // virtual modules
      const path = resolve(dir, key);
      if (path.includes('/node_modules/')) continue;
      inputs.set(path, stamp(path));
    }
    for (const path of [entry, ...mapFiles]) inputs.set(path, stamp(path));
    const compiled: Build = { name, entry, dir, bundleUrl: pathToFileURL(bundlePath).href, inputs };
    this.builds.set(name, compiled);
    return compiled;
  }
}
