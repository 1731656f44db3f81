/**
 * The proxies of the replica suites, as real processes: Debian's PgBouncer (transaction
 * pooling in front of the run's PostgreSQL cluster) and HAProxy (in front of server
 * replicas). `node scripts/ensure-proxies.mjs` installs both.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chown, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { until } from '../support/until';

export const PGBOUNCER = '/usr/sbin/pgbouncer';
export const HAPROXY = '/usr/sbin/haproxy';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Resolves once something accepts TCP connections on `port`. */
export function waitForPort(port: number, ms = 10_000): Promise<true> {
  return until(
    () =>
      new Promise<boolean>((resolve) => {
        const socket = connect(port, '127.0.0.1');
        socket.once('connect', () => {
          socket.destroy();
          resolve(true);
        });
        socket.once('error', () => resolve(false));
      }),
    ms,
  );
}

export interface ProxyProcess {
  port: number;
  /** Stops the process and removes its files. */
  stop(): Promise<void>;
}

async function stopChild(child: ChildProcess, dir: string) {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
  await rm(dir, { recursive: true, force: true });
}

function spawnLogged(command: string, args: string[]): { child: ChildProcess; log: () => string } {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout?.on('data', (d) => {
    log += d;
  });
  child.stderr?.on('data', (d) => {
    log += d;
  });
  return { child, log: () => log };
}

/**
 * PgBouncer in transaction mode in front of the cluster at `adminUrl`: every database of the
 * cluster, any client user (logged in to PostgreSQL as `postgres`), `poolSize` server
 * connections per database, so concurrent clients share them.
 */
export async function startPgBouncer(adminUrl: string, poolSize = 3): Promise<ProxyProcess> {
  const target = new URL(adminUrl);
  const dir = await mkdtemp(join(tmpdir(), 'pgbouncer-'));
  const port = await freePort();
  const ini = join(dir, 'pgbouncer.ini');
  await writeFile(
    ini,
    [
      '[databases]',
      `* = host=${target.hostname} port=${target.port} user=postgres`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = any',
      'pool_mode = transaction',
      `default_pool_size = ${poolSize}`,
      'max_client_conn = 500',
      'server_reset_query =',
      'ignore_startup_parameters = extra_float_digits',
      '',
    ].join('\n'),
  );
  // PgBouncer refuses to run as root: as root it switches to the cluster's owner.
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    await chown(dir, uid, gid);
    await chown(ini, uid, gid);
  }
  const { child, log } = spawnLogged(PGBOUNCER, [...(asRoot ? ['-u', 'postgres'] : []), ini]);
  await waitForPort(port).catch((error) => {
    child.kill('SIGKILL');
    throw new Error(`pgbouncer did not start: ${log()} (${String(error)})`);
  });
  return { port, stop: () => stopChild(child, dir) };
}

export interface Balancer extends ProxyProcess {
  /** The runtime API's Unix socket (`socat stdio <socket>`). */
  socket: string;
  /** Sends one command to HAProxy's runtime API (its stats socket); resolves to the answer. */
  command(line: string): Promise<string>;
  /** Resolves once HAProxy's health checks see `server` as `UP` (or `DOWN`). */
  waitFor(server: string, state: 'UP' | 'DOWN'): Promise<void>;
}

/**
 * HAProxy in front of `replicas` (server names r0, r1, …): health checks on the auth
 * service's health endpoint (with the project's publishable key, as every API route wants one), X-Forwarded-For added, connection failures retried on another
 * replica. A request with `x-replica: rN` goes to rN while it is up (the tests aim a request
 * at the replica they are about to kill). The layout of `deploy/haproxy.cfg`.
 */
export function startHaproxy(replicas: number[], apiKey: string): Promise<Balancer> {
  return startHaproxyWith(({ port, socket }) =>
    [
      'global',
      `  stats socket ${socket} mode 600 level admin`,
      'defaults',
      '  mode http',
      '  option forwardfor',
      '  option redispatch 1',
      '  retries 3',
      '  timeout connect 2s',
      '  timeout client 60s',
      '  timeout server 60s',
      '  timeout tunnel 1h',
      'frontend api',
      `  bind 127.0.0.1:${port}`,
      '  default_backend replicas',
      'backend replicas',
      '  balance roundrobin',
      '  option httpchk',
      `  http-check send meth GET uri /auth/v1/health ver HTTP/1.1 hdr host localhost hdr apikey ${apiKey}`,
      '  http-check expect status 200',
      '  timeout check 2s',
      // Down after 3 failed checks (a replica starting next door can slow one down).
      '  default-server inter 300ms fall 3 rise 1',
      ...replicas.map((_, i) => `  use-server r${i} if { req.hdr(x-replica) -m str r${i} }`),
      ...replicas.map((p, i) => `  server r${i} 127.0.0.1:${p} check`),
      '',
    ].join('\n'),
  );
}

/**
 * HAProxy with the configuration `render` writes for its port (`port`, 0 for a free one)
 * and runtime API socket; the backend of the servers must be named `replicas`.
 */
export async function startHaproxyWith(
  render: (at: { port: number; socket: string }) => string,
  port = 0,
): Promise<Balancer> {
  const dir = await mkdtemp(join(tmpdir(), 'haproxy-'));
  const bound = port || (await freePort());
  const socket = join(dir, 'admin.sock');
  const cfg = join(dir, 'haproxy.cfg');
  await writeFile(cfg, render({ port: bound, socket }));
  const { child, log } = spawnLogged(HAPROXY, ['-db', '-f', cfg]);
  await waitForPort(bound).catch((error) => {
    child.kill('SIGKILL');
    throw new Error(`haproxy did not start: ${log()} (${String(error)})`);
  });
  const command = (line: string) =>
    new Promise<string>((resolve, reject) => {
      const s = connect(socket);
      let out = '';
      s.on('data', (d) => {
        out += d;
      });
      s.once('error', reject);
      s.once('end', () => resolve(out));
      s.write(`${line}\n`);
    });
  return {
    port: bound,
    socket,
    command,
    async waitFor(server, state) {
      await until(async () => {
        const stat = await command('show stat');
        const row = stat.split('\n').find((l) => l.startsWith(`replicas,${server},`));
        return row?.split(',')[17]?.startsWith(state) ?? false;
      });
    },
    stop: () => stopChild(child, dir),
  };
}

/** Whether Debian's pgbouncer and haproxy are installed (scripts/ensure-proxies.mjs). */
export const proxiesInstalled = () => existsSync(PGBOUNCER) && existsSync(HAPROXY);
