/**
 * Browser test support: Chromium (Debian's, through playwright-core, the same flags as
 * Drive's end-to-end tests), a static server for the SDK page, and a real HTTP proxy in
 * front of the backend that counts refresh requests and can hold one back.
 */
import { existsSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import { type AddressInfo, connect, createServer as createTcpServer, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { type Browser, chromium } from 'playwright-core';

/** Launches headless Chromium: `CHROMIUM_PATH`, else /usr/bin/chromium. */
export async function launchChromium(): Promise<Browser> {
  const path = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
  if (!existsSync(path))
    throw new Error(
      `Chromium not found at ${path}: install it with \`apt-get install -y chromium\` (or run \`node scripts/ensure-chromium.mjs\`), or set CHROMIUM_PATH.`,
    );
  return chromium.launch({
    executablePath: path,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      // Every tab keeps its timers running at full rate, as a visible tab does.
      '--disable-background-timer-throttling',
      '--disable-renderer-backgrounding',
      '--disable-backgrounding-occluded-windows',
    ],
  });
}

const listen = async (server: Server): Promise<string> => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

const close = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

/** Serves a test page (`page.ts`, or `entry`, bundled with the SDK) on its own origin. */
export async function servePage(
  entry = './page.ts',
): Promise<{ url: string; close(): Promise<void> }> {
  const bundle = await build({
    entryPoints: [fileURLToPath(new URL(entry, import.meta.url))],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
  });
  const js = bundle.outputFiles[0]?.text ?? '';
  const html =
    '<!doctype html><meta charset="utf-8"><title>tab</title><script src="/sdk.js"></script>';
  const server = createServer((req, res) => {
    const isJs = req.url?.startsWith('/sdk.js');
    res.setHeader('content-type', isJs ? 'text/javascript' : 'text/html');
    res.end(isJs ? js : html);
  });
  const url = await listen(server);
  return { url, close: () => close(server) };
}

/** One refresh request as it reached the server through the proxy. */
export interface RefreshRecord {
  /** The refresh token presented. */
  presented: string;
  /** The refresh token the server answered with (null for an error). */
  returned: string | null;
  status: number;
  /** The server's error code, if any. */
  code: string | null;
  /** The tab had given the request up (closed its connection) before it was forwarded. */
  abandoned: boolean;
}

/** A request the proxy holds back. */
interface Held {
  abandoned: Promise<void>;
  forward(): Promise<RefreshRecord>;
}

/**
 * A forwarding HTTP proxy to `target`. Every `POST /auth/v1/token?grant_type=refresh_token`
 * is recorded in `refreshes` once the server answered it. `holdNextRefresh()` keeps the next
 * one from the server until `forward()` (as a congested network would), and reports when
 * the tab gives it up.
 */
export async function refreshProxy(target: string) {
  const refreshes: RefreshRecord[] = [];
  const listeners = new Set<() => void>();
  let hold: ((held: Held) => void) | null = null;
  const upstream = new URL(target);

  const send = (req: IncomingMessage, body: Buffer) =>
    new Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }>(
      (resolve, reject) => {
        const out = httpRequest(
          {
            host: upstream.hostname,
            port: upstream.port,
            method: req.method,
            path: req.url,
            headers: { ...req.headers, host: upstream.host },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () =>
              resolve({
                status: res.statusCode ?? 0,
                headers: res.headers,
                body: Buffer.concat(chunks),
              }),
            );
            res.on('error', reject);
          },
        );
        out.on('error', reject);
        out.end(body);
      },
    );

  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const isRefresh =
      req.method === 'POST' && /\/auth\/v1\/token\?grant_type=refresh_token/.test(req.url ?? '');
    let abandoned = false;
    let gone = () => {};
    const left = new Promise<void>((resolve) => (gone = resolve));
    res.on('close', () => {
      if (!res.writableFinished) {
        abandoned = true;
        gone();
      }
    });
    const forward = async (): Promise<RefreshRecord | null> => {
      const answer = await send(req, body);
      if (!abandoned) {
        res.writeHead(answer.status, answer.headers as never);
        res.end(answer.body);
      }
      if (!isRefresh) return null;
      const json = JSON.parse(answer.body.toString() || '{}') as Record<string, unknown>;
      const record: RefreshRecord = {
        presented: String((JSON.parse(body.toString()) as { refresh_token: string }).refresh_token),
        returned: typeof json.refresh_token === 'string' ? json.refresh_token : null,
        status: answer.status,
        code:
          typeof json.error_code === 'string'
            ? json.error_code
            : typeof json.code === 'string'
              ? json.code
              : null,
        abandoned,
      };
      refreshes.push(record);
      for (const l of [...listeners]) l();
      return record;
    };
    if (isRefresh && hold) {
      const take = hold;
      hold = null;
      take({ abandoned: left, forward: async () => (await forward()) as RefreshRecord });
      return;
    }
    await forward().catch(() => res.destroy());
  });
  const url = await listen(server);
  return {
    url,
    refreshes,
    /** Resolves with the next refresh request, held back until its `forward()`. */
    holdNextRefresh(): Promise<Held> {
      return new Promise((resolve) => (hold = resolve));
    },
    /** Resolves once `count` refreshes have been answered by the server. */
    until(count: number, ms = 60_000): Promise<void> {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (refreshes.length < count) return;
          listeners.delete(check);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`${refreshes.length} of ${count} refreshes within ${ms} ms`));
        }, ms);
        listeners.add(check);
        check();
      });
    },
    close: () => close(server),
  };
}

/**
 * A TCP proxy to `target` standing for a device's network. `freeze()` stops every open
 * connection where it is, without closing it: no byte goes through in either direction, and
 * neither end hears of it (a laptop that slept, a network that changed under a socket). New
 * connections go through as before.
 */
export async function freezingProxy(target: string) {
  const { hostname, port } = new URL(target);
  const live = new Set<[Socket, Socket]>();
  const frozen = new Set<[Socket, Socket]>();
  const server = createTcpServer((client) => {
    const upstream = connect(Number(port), hostname);
    const pair: [Socket, Socket] = [client, upstream];
    live.add(pair);
    client.pipe(upstream);
    upstream.pipe(client);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      live.delete(pair);
    };
    for (const socket of pair) socket.on('error', drop).on('close', drop);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** How many connections are open and passing bytes. */
    get open() {
      return live.size;
    },
    freeze() {
      for (const pair of live) {
        const [client, upstream] = pair;
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
        frozen.add(pair);
      }
      live.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const pair of [...live, ...frozen]) for (const socket of pair) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
