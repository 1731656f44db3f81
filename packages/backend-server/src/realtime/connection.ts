import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket, WebSocketServer } from 'ws';
import { apiKeyInfo, isBrowser, SECRET_KEY_IN_BROWSER } from '../http/gateway';
import type { JwtClaims } from '../http/jwt';
import { devToolsFor } from '../logs/index';
import { Channel, type ChannelSocket } from './channel';
import type { RealtimeContext } from './context';
import type { Outlet } from './hub';
import { decodeBinary, decodeText, encode, type Frame, type InMessage, type Vsn } from './protocol';
import { checkToken } from './tokens';

/** Channels one socket may join (hosted default `max_channels_per_client`). */
const MAX_CHANNELS = 100;

/** Largest frame a client may send (hosted: 5 MB). */
const MAX_FRAME = 5 * 1024 * 1024;

const NO_KEY = {
  message: 'No API key found in request',
  hint: 'No `apikey` request header or url param was found.',
};
const BAD_KEY = {
  message: 'Invalid API key',
  hint: 'Double check your Supabase `anon` or `service_role` API key.',
};

const STATUS_TEXT: Record<number, string> = { 401: 'Unauthorized', 404: 'Not Found' };

/** Answers an upgrade request with a plain HTTP JSON error and closes the socket. */
function refuse(socket: Duplex, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Error'}\r\n` +
      'Content-Type: application/json\r\n' +
      `Content-Length: ${Buffer.byteLength(text)}\r\n` +
      'Connection: close\r\n\r\n' +
      text,
  );
}

/** One client socket: frames in and out, heartbeat, idle close, its channels. */
class Connection implements ChannelSocket, Outlet {
  private readonly channels = new Map<string, Channel>();
  private queue: Promise<void> = Promise.resolve();
  private idle: NodeJS.Timeout | null = null;
  readonly outlet: Outlet = this;
  /** For the console: a short id, when it connected, who its token says it is. */
  readonly id = randomUUID().slice(0, 8);
  readonly connectedAt = Date.now();
  readonly role: string | null;
  readonly user: string | null;

  constructor(
    readonly ctx: RealtimeContext,
    private readonly ws: WebSocket,
    readonly vsn: Vsn,
    readonly connectToken: string,
    readonly headers: Record<string, string>,
    claims: JwtClaims,
  ) {
    this.role = typeof claims.role === 'string' ? claims.role : null;
    this.user = typeof claims.sub === 'string' ? claims.sub : null;
    ws.on('message', (data, isBinary) => this.receive(data as Buffer, isBinary));
    ws.on('close', () => this.closed());
    ws.on('error', () => ws.terminate());
    this.touch();
    this.event('connect', `socket ${this.id} connected (vsn ${vsn})`);
  }

  /** The socket for the console: id, caller, joined topics. */
  describe() {
    return {
      id: this.id,
      role: this.role,
      user: this.user,
      connectedAt: this.connectedAt,
      channels: [...this.channels.keys()],
    };
  }

  private event(level: string, message: string): void {
    devToolsFor(this.ctx.config).log.push({
      kind: 'realtime',
      level,
      source: this.id,
      message,
      role: this.role,
      user: this.user,
    });
  }

  send(frame: Frame): void {
    if (this.ws.readyState !== this.ws.OPEN) return;
    if (typeof frame === 'string' || Buffer.isBuffer(frame)) this.ws.send(frame);
    else this.ws.send(frame.text, { binary: false });
  }

  reply(msg: InMessage, status: 'ok' | 'error', response: Record<string, unknown>): void {
    this.send(encode(this.vsn, msg.joinRef, msg.ref, msg.topic, 'phx_reply', { status, response }));
  }

  detach(channel: Channel): void {
    if (this.channels.get(channel.member.topic) === channel) {
      this.channels.delete(channel.member.topic);
    }
  }

  /** Closes the socket (server shutdown). */
  terminate(): void {
    this.ws.close(1001, 'server shutting down');
    // Do not wait long for the client's close frame.
    setTimeout(() => this.ws.terminate(), 250).unref();
  }

  private touch(): void {
    if (this.idle) clearTimeout(this.idle);
    this.idle = setTimeout(
      () => this.ws.close(1000, 'idle timeout'),
      this.ctx.config.realtime.idleTimeoutMs,
    );
  }

  private receive(data: Buffer, isBinary: boolean): void {
    this.touch();
    // Frames are handled one after another, like a Phoenix socket process.
    this.queue = this.queue
      .then(() => this.handle(data, isBinary))
      .catch((error) => this.ctx.log(`realtime frame failed: ${String(error)}`));
  }

  private async handle(data: Buffer, isBinary: boolean): Promise<void> {
    if (isBinary) {
      const msg = decodeBinary(data);
      if (!msg) return;
      const channel = this.channels.get(msg.topic);
      if (!channel) return this.reply(msg, 'error', { reason: 'unmatched topic' });
      return channel.userBroadcast(msg, msg.broadcast);
    }
    const msg = decodeText(this.vsn, data.toString('utf8'));
    if (!msg) return;
    if (msg.topic === 'phoenix') {
      if (msg.event === 'heartbeat') this.reply(msg, 'ok', {});
      return;
    }
    if (msg.event === 'phx_join') return this.join(msg);
    const channel = this.channels.get(msg.topic);
    if (!channel) return this.reply(msg, 'error', { reason: 'unmatched topic' });
    switch (msg.event) {
      case 'phx_leave':
        return channel.leave(msg);
      case 'broadcast':
        return channel.broadcast(msg);
      case 'presence':
        return channel.presence(msg);
      case 'access_token':
        return channel.accessToken(msg);
      default:
        // Unknown client events are ignored, as the hosted service does.
        return;
    }
  }

  private async join(msg: InMessage): Promise<void> {
    if (!msg.topic.startsWith('realtime:')) {
      return this.reply(msg, 'error', { reason: 'unmatched topic' });
    }
    // A second join of the same topic closes the first.
    this.channels.get(msg.topic)?.close();
    if (this.channels.size >= MAX_CHANNELS) {
      return this.reply(msg, 'error', { reason: 'ChannelRateLimitReached: Too many channels' });
    }
    const channel = await Channel.join(this, msg);
    if (channel) {
      if (this.ws.readyState !== this.ws.OPEN) channel.dispose();
      else this.channels.set(msg.topic, channel);
    }
  }

  private closed(): void {
    if (this.idle) clearTimeout(this.idle);
    // After queued frames, so a join in flight is released too.
    this.queue = this.queue.then(() => {
      for (const channel of [...this.channels.values()]) channel.dispose();
      this.ctx.connections.delete(this);
      this.event('disconnect', `socket ${this.id} closed`);
    });
  }
}

/** The socket endpoint `/realtime/v1/websocket`. */
export function createSocketEndpoint(ctx: RealtimeContext, basePath: string) {
  // `ws` is loaded with the first socket, so a server nobody connects to never loads it.
  let wss: Promise<WebSocketServer> | null = null;
  const server = () => {
    wss ??= import('ws').then(
      ({ WebSocketServer }) => new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME }),
    );
    return wss;
  };
  const path = `${basePath}/websocket`;
  const terminateAll = () => {
    for (const connection of [...ctx.connections]) connection.terminate();
  };
  return {
    upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean {
      const url = new URL(req.url ?? '/', 'http://localhost');
      if (url.pathname !== path && url.pathname !== `${path}/`) return false;
      void (async () => {
        const header = req.headers['x-api-key'];
        const apiKey = url.searchParams.get('apikey');
        let token: string;
        if (typeof header === 'string' && header !== '') {
          token = header;
        } else {
          // The gateway's key-auth, then realtime's own token checks.
          if (!apiKey) return refuse(socket, 401, NO_KEY);
          const key = apiKeyInfo(ctx.config, apiKey);
          if (!key) return refuse(socket, 401, BAD_KEY);
          if (key.kind === 'secret' && isBrowser(req.headers['user-agent'])) {
            return refuse(socket, 401, SECRET_KEY_IN_BROWSER);
          }
          token = apiKey;
        }
        const checked = await checkToken(token, ctx.config);
        if (!checked.ok) return refuse(socket, 401, { error: checked.error.connectMessage });
        const vsn: Vsn = url.searchParams.get('vsn')?.startsWith('2.') ? '2.0.0' : '1.0.0';
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(req.headers)) {
          if (typeof value === 'string') headers[name] = value;
        }
        (await server()).handleUpgrade(req, socket, head, (ws) => {
          ctx.connections.add(new Connection(ctx, ws, vsn, token, headers, checked.claims));
        });
      })().catch((error) => {
        ctx.log(`realtime upgrade failed: ${String(error)}`);
        socket.destroy();
      });
      return true;
    },
    async close(): Promise<void> {
      terminateAll();
      const open = await wss;
      if (open) await new Promise<void>((resolve) => open.close(() => resolve()));
    },
  };
}

export type { Connection };
