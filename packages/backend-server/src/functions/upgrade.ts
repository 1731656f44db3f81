import { type IncomingMessage, STATUS_CODES } from 'node:http';
import { isIP, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type WebSocket from 'ws';
import type { WebSocketServer } from 'ws';
import { resolveClientAddress, type TrustedProxies } from '../http/client-address';
import { HOP_BY_HOP } from './protocol';
import type { FunctionWorker } from './worker';

/** A function a call or upgrade goes to: its name, the path after it, its worker. */
export interface Target {
  name: string;
  sub: string;
  worker: FunctionWorker;
}

interface UpgradeDeps {
  /** The function for a path, after verify_jwt; or the answer to give instead. */
  target(
    path: string,
    method: string,
    authorization: string | undefined,
  ): Promise<Target | Response>;
  /** The answer to a call that failed. */
  failed(error: unknown): Response;
  /** Peers whose `X-Forwarded-For` names the client (the function's `remoteAddr`). */
  trustedProxies: TrustedProxies;
  log(message: string): void;
}

/** Headers of an upgrade request the function sees: the upgrade's own ones included. */
const KEPT = new Set(['upgrade', 'connection']);

/**
 * Upgrade requests to `/functions/v1/<name>`: the same checks as any call (verify_jwt on the
 * `Authorization` header), then the function is called with the request. When it returns
 * `Deno.upgradeWebSocket`'s response the handshake completes and the connection is the
 * function's (worker.ts, sockets.ts); any other response is written back as plain HTTP.
 */
export function functionUpgrades(deps: UpgradeDeps) {
  let wss: Promise<WebSocketServer> | null = null;
  /** The subprotocol each handshake accepts, as its function chose it. */
  const chosen = new WeakMap<IncomingMessage, string>();
  const server = () => {
    wss ??= import('ws').then(
      ({ WebSocketServer }) =>
        new WebSocketServer({
          noServer: true,
          handleProtocols: (_offered, req) => chosen.get(req) || false,
        }),
    );
    return wss;
  };
  /** Upgrade requests still waiting for their function's answer. */
  const pending = new Set<Duplex>();

  const dispatch = async (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const method = req.method ?? 'GET';
    const url = new URL(req.url ?? '/', `http://${req.headers.host ?? 'localhost'}`);
    const found = await deps.target(url.pathname, method, req.headers.authorization);
    if (found instanceof Response) return writeResponse(socket, found);
    const headers: [string, string][] = [];
    for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
      const key = (req.rawHeaders[i] as string).toLowerCase();
      if (!HOP_BY_HOP.has(key) || KEPT.has(key))
        headers.push([key, req.rawHeaders[i + 1] as string]);
    }
    const forwardedFor = req.headers['x-forwarded-for'];
    const address = resolveClientAddress(
      (socket as Socket).remoteAddress,
      typeof forwardedFor === 'string' ? forwardedFor : undefined,
      deps.trustedProxies,
    );
    const remote = {
      hostname: isIP(address) ? address : '127.0.0.1',
      port: (socket as Socket).remotePort ?? 0,
    };
    const abort = new AbortController();
    const gone = () => abort.abort();
    socket.once('close', gone);
    let upgraded = false;
    const accept = async (protocol: string): Promise<WebSocket | null> => {
      if (socket.destroyed) return null;
      const wsServer = await server();
      chosen.set(req, protocol);
      return new Promise((resolve) => {
        // A handshake ws refuses (bad key or version) answers 400 and closes the socket.
        socket.once('close', () => resolve(null));
        wsServer.handleUpgrade(req, socket, head, (ws) => {
          upgraded = true;
          socket.off('close', gone);
          resolve(ws);
        });
      });
    };
    let response: Response | null;
    try {
      response = await found.worker.invoke({
        method,
        url: `${url.origin}/${found.name}${found.sub}${url.search}`,
        headers,
        body: null,
        signal: abort.signal,
        remote,
        accept,
      });
    } catch (error) {
      response = deps.failed(error);
    }
    socket.off('close', gone);
    if (response && !upgraded) await writeResponse(socket, response);
  };

  return {
    upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean {
      pending.add(socket);
      dispatch(req, socket, head)
        .catch((error) => {
          deps.log(`functions upgrade failed: ${String(error)}`);
          socket.destroy();
        })
        .finally(() => pending.delete(socket));
      return true;
    },
    /** Server shutdown: requests still waiting are cut off (open sockets close with their workers). */
    close() {
      for (const socket of pending) socket.destroy();
      pending.clear();
      void wss?.then((s) => s.close());
    },
  };
}

/** Writes `response` on a connection that asked for an upgrade, then closes it. */
async function writeResponse(socket: Duplex, response: Response): Promise<void> {
  if (socket.destroyed) return;
  const head = [
    `HTTP/1.1 ${response.status} ${response.statusText || STATUS_CODES[response.status] || ''}`,
  ];
  response.headers.forEach((value, key) => {
    if (key !== 'set-cookie' && key !== 'content-length' && !HOP_BY_HOP.has(key))
      head.push(`${key}: ${value}`);
  });
  for (const cookie of response.headers.getSetCookie()) head.push(`set-cookie: ${cookie}`);
  head.push('connection: close');
  socket.write(`${head.join('\r\n')}\r\n\r\n`);
  if (response.body) {
    for await (const chunk of response.body) {
      if (socket.destroyed) break;
      socket.write(chunk);
    }
  }
  socket.end();
}
