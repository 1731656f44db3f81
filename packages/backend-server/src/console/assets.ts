import { existsSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.map': 'application/json',
  '.woff2': 'font/woff2',
};

/**
 * Where the built console app is: the configured folder, else `apps/console/dist` of the
 * repository this server runs from (the server is private to it), found by walking up from
 * this module. Null when it has not been built.
 */
export function findConsoleAssets(configured: string | null): string | null {
  if (configured) return existsSync(join(configured, 'index.html')) ? configured : null;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i += 1) {
    const candidate = join(dir, 'apps', 'console', 'dist');
    if (existsSync(join(candidate, 'index.html'))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return null;
}

const NOT_BUILT = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Console not built</title></head>
<body><main><h1>The console has not been built</h1>
<p>Run <code>pnpm -F console build</code> in the repository, then reload this page.</p></main></body></html>`;

/**
 * Serves the console's files below `/_console/`: hashed assets with a long cache, and
 * `index.html` (never cached) for every other path, so the app's own routes load it.
 */
export async function serveAsset(root: string | null, path: string): Promise<Response> {
  if (!root) {
    return new Response(NOT_BUILT, {
      status: 503,
      headers: { 'content-type': TYPES['.html'] as string, 'cache-control': 'no-store' },
    });
  }
  const file = normalize(join(root, path));
  const inside = file.startsWith(root + sep);
  const isFile = inside && statSync(file, { throwIfNoEntry: false })?.isFile();
  if (!isFile && path.startsWith('assets/')) {
    return new Response('Not found', { status: 404, headers: { 'content-type': 'text/plain' } });
  }
  const target = isFile ? file : join(root, 'index.html');
  const body = await readFile(target);
  const hashed = target.includes(`${sep}assets${sep}`);
  return new Response(new Uint8Array(body), {
    headers: {
      'content-type': TYPES[extname(target)] ?? 'application/octet-stream',
      'cache-control': hashed ? 'public, max-age=31536000, immutable' : 'no-store',
    },
  });
}
