/**
 * Opening a protocol connection: the socket (TCP, or a Unix socket from `?host=/dir`), the
 * startup message and the password exchanges PostgreSQL asks for (cleartext, MD5,
 * SCRAM-SHA-256 without channel binding).
 */
import { createHash, createHmac, pbkdf2Sync, randomBytes, timingSafeEqual } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { B, errorFields, F, type Message, Reader, WireError, Writer } from './wire';

/** Where and as whom to connect, from a postgres:// URL. */
export interface ConnectTarget {
  host: string;
  port: number;
  /** A Unix socket path instead of host/port. */
  socketPath: string | null;
  user: string;
  password: string;
  database: string;
  /** Session settings sent in the startup message (the server's own, e.g. Vault's key). */
  settings?: Readonly<Record<string, string>>;
}

/**
 * The target of a postgres:// URL, or null when the URL asks for what this path does not
 * do (TLS): the caller then keeps to the general driver.
 */
export function connectTarget(url: string): ConnectTarget | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:') return null;
  const sslmode = u.searchParams.get('sslmode');
  const ssl = u.searchParams.get('ssl');
  if ((sslmode && sslmode !== 'disable' && sslmode !== 'prefer') || (ssl && ssl !== 'false')) {
    return null;
  }
  const user = decodeURIComponent(u.username) || 'postgres';
  const port = Number(u.port || 5432);
  const dir = u.searchParams.get('host');
  const host = decodeURIComponent(u.hostname) || 'localhost';
  if (host.includes(',')) return null; // several hosts: the general driver's business
  return {
    host,
    port,
    socketPath: dir?.startsWith('/') ? `${dir}/.s.PGSQL.${port}` : null,
    user,
    password: decodeURIComponent(u.password) || process.env.PGPASSWORD || '',
    database: decodeURIComponent(u.pathname.slice(1)) || user,
  };
}

const md5 = (data: string | Buffer) => createHash('md5').update(data).digest('hex');
const hmac = (key: Buffer, text: string) => createHmac('sha256', key).update(text).digest();

/** The SCRAM-SHA-256 client: first message, then the proof for the server's challenge. */
function scram(password: string) {
  const nonce = randomBytes(18).toString('base64');
  const firstBare = `n=,r=${nonce}`;
  let serverSignature: Buffer | null = null;
  return {
    first: `n,,${firstBare}`,
    final(serverFirst: string): string {
      const attrs = new Map(serverFirst.split(',').map((p) => [p[0], p.slice(2)] as const));
      const serverNonce = attrs.get('r') ?? '';
      const salt = Buffer.from(attrs.get('s') ?? '', 'base64');
      const iterations = Number(attrs.get('i'));
      if (!serverNonce.startsWith(nonce) || !Number.isInteger(iterations) || iterations < 1) {
        throw new Error('SCRAM: the server sent an invalid challenge');
      }
      const salted = pbkdf2Sync(password, salt, iterations, 32, 'sha256');
      const clientKey = hmac(salted, 'Client Key');
      const storedKey = createHash('sha256').update(clientKey).digest();
      const withoutProof = `c=biws,r=${serverNonce}`;
      const authMessage = `${firstBare},${serverFirst},${withoutProof}`;
      const signature = hmac(storedKey, authMessage);
      const proof = Buffer.from(clientKey.map((b, i) => b ^ (signature[i] as number)));
      serverSignature = hmac(hmac(salted, 'Server Key'), authMessage);
      return `${withoutProof},p=${proof.toString('base64')}`;
    },
    check(serverFinal: string): void {
      const v = Buffer.from(serverFinal.startsWith('v=') ? serverFinal.slice(2) : '', 'base64');
      if (!serverSignature || v.length !== 32 || !timingSafeEqual(v, serverSignature)) {
        throw new Error('SCRAM: the server could not prove it knows the password');
      }
    },
  };
}

/** Answers one authentication request; returns the bytes to send, or null for none. */
function answerAuth(
  body: Buffer,
  target: ConnectTarget,
  state: { scram?: ReturnType<typeof scram> },
): Buffer | null {
  const kind = body.readInt32BE(0);
  const w = new Writer();
  switch (kind) {
    case 0: // ok
      return null;
    case 3: // cleartext
      return w.begin(F.password).cstr(target.password).end().take();
    case 5: {
      const inner = md5(target.password + target.user);
      const hashed = `md5${md5(Buffer.concat([Buffer.from(inner), body.subarray(4, 8)]))}`;
      return w.begin(F.password).cstr(hashed).end().take();
    }
    case 10: {
      const mechanisms = body.toString('utf8', 4).split('\0');
      if (!mechanisms.includes('SCRAM-SHA-256')) {
        throw new Error(`unsupported SASL mechanisms: ${mechanisms.filter(Boolean).join(', ')}`);
      }
      state.scram = scram(target.password);
      const first = Buffer.from(state.scram.first);
      return w
        .begin(F.password)
        .cstr('SCRAM-SHA-256')
        .int32(first.length)
        .bytes(first)
        .end()
        .take();
    }
    case 11:
      if (!state.scram) throw new Error('SCRAM: unexpected continuation');
      return w
        .begin(F.password)
        .bytes(Buffer.from(state.scram.final(body.toString('utf8', 4))))
        .end()
        .take();
    case 12:
      state.scram?.check(body.toString('utf8', 4));
      return null;
    default:
      throw new Error(`unsupported authentication method (${kind})`);
  }
}

/** An open, authenticated connection, idle and ready for queries. */
export interface OpenConnection {
  socket: Socket;
  reader: Reader;
}

/** How long opening a connection may take. */
const CONNECT_TIMEOUT = 10_000;

/** Connects, authenticates and waits for the first ReadyForQuery. */
export function openConnection(
  target: ConnectTarget,
  applicationName: string,
): Promise<OpenConnection> {
  return new Promise((resolve, reject) => {
    const socket = target.socketPath
      ? connect(target.socketPath)
      : connect(target.port, target.host);
    socket.setNoDelay(true);
    const reader = new Reader();
    const state = {};
    const timer = setTimeout(() => fail(new Error('timed out connecting')), CONNECT_TIMEOUT);
    const fail = (error: unknown) => {
      clearTimeout(timer);
      socket.destroy();
      reject(error);
    };
    const onData = (chunk: Buffer) => {
      let messages: Message[];
      try {
        messages = reader.push(chunk);
        for (const m of messages) {
          if (m.type === B.auth) {
            const reply = answerAuth(m.body, target, state);
            if (reply) socket.write(reply);
          } else if (m.type === B.error) {
            throw new WireError(errorFields(m.body));
          } else if (m.type === B.ready) {
            clearTimeout(timer);
            socket.off('data', onData).off('error', fail).off('close', onClose);
            resolve({ socket, reader });
            return;
          }
        }
      } catch (error) {
        fail(error);
      }
    };
    const onClose = () => fail(new Error('connection closed during startup'));
    socket.on('data', onData).on('error', fail).on('close', onClose);
    socket.once('connect', () => {
      const w = new Writer().begin(0).int32(196608);
      w.cstr('user').cstr(target.user).cstr('database').cstr(target.database);
      w.cstr('application_name').cstr(applicationName).cstr('client_encoding').cstr('UTF8');
      for (const [name, value] of Object.entries(target.settings ?? {})) w.cstr(name).cstr(value);
      socket.write(w.cstr('').end().take());
    });
  });
}
