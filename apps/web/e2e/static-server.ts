import { createReadStream, existsSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, sep } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
  '.webmanifest': 'application/manifest+json',
  '.png': 'image/png',
  '.map': 'application/json',
};

/**
 * Serves a built single-page app from `root` (index.html fallback), on `port` (default: a free
 * one) of `host` (default 127.0.0.1). `head` is HTML added at the end of index.html's `<head>`
 * (e.g. the run-time backend settings), read on every request when it is a function.
 */
export async function serveStatic(
  root: string,
  {
    port = 0,
    host = '127.0.0.1',
    head = '',
  }: { port?: number; host?: string; head?: string | (() => string) } = {},
): Promise<{ url: string; close(): Promise<void> }> {
  const index = join(root, 'index.html');
  if (!existsSync(index)) throw new Error(`${index} is missing: run \`pnpm build\` first.`);
  const html = readFileSync(index, 'utf8');
  const page = () =>
    html.replace('</head>', () => `${typeof head === 'function' ? head() : head}</head>`);
  const server: Server = createServer((req, res) => {
    let path = '/';
    try {
      path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    } catch {}
    const file = normalize(join(root, path));
    const inside = file.startsWith(root + sep);
    const target = inside && existsSync(file) && statSync(file).isFile() ? file : index;
    res.setHeader('content-type', TYPES[extname(target)] ?? 'application/octet-stream');
    if (target === index) res.end(page());
    else createReadStream(target).pipe(res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${host}:${address.port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
