/**
 * Server replicas as child processes (`backend-server start`, so they can be SIGKILLed) on
 * one database through PgBouncer, one shared storage directory, behind HAProxy: the layout
 * of `deploy/`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtCli } from '../support/built-cli';
import {
  type Balancer,
  freePort,
  type ProxyProcess,
  startHaproxy,
  startPgBouncer,
  waitForPort,
} from './proxies';

/** One replica: a CLI process on a fixed port, which can be killed and started again. */
export class Replica {
  child: ChildProcess | null = null;
  anonKey = '';
  serviceRoleKey = '';
  publishableKey = '';
  /** What the process printed at start (the keys, the console link). */
  #banner = '';
  constructor(
    readonly name: string,
    readonly port: number,
    private readonly args: string[],
    /** Environment variables added to this process's (e.g. the S3 backend's AWS_* keys). */
    private readonly env: Record<string, string> = {},
  ) {}

  /** Starts the process; resolves once it printed its keys (it is listening then). */
  async start(): Promise<void> {
    const t0 = Date.now();
    const child = spawn(
      process.execPath,
      [await builtCli(), 'start', '--port', String(this.port), ...this.args],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...this.env } },
    );
    this.child = child;
    let out = '';
    let err = '';
    child.stderr?.on('data', (d) => {
      err += d;
    });
    await new Promise<void>((resolve, reject) => {
      child.stdout?.on('data', (d) => {
        out += d;
        if (/service_role key:\s+\S+\n/.test(out)) resolve();
      });
      child.once('exit', (code, signal) =>
        reject(new Error(`${this.name} exited (${code ?? signal}): ${err}`)),
      );
    });
    this.#banner = out;
    this.anonKey = this.printed('anon key') ?? '';
    this.serviceRoleKey = this.printed('service_role key') ?? '';
    this.publishableKey = this.printed('publishable key') ?? '';
    await waitForPort(this.port);
    if (process.env.REPLICA_DEBUG) console.log(`${this.name} started in ${Date.now() - t0} ms`);
  }

  /** The value of a `label: value` line the process printed at start. */
  printed(label: string): string | undefined {
    return new RegExp(`${label}:\\s+(\\S+)`).exec(this.#banner)?.[1];
  }

  /** SIGKILL: no shutdown at all, as a crash. */
  async kill(): Promise<void> {
    await this.#signal('SIGKILL');
  }

  /** SIGTERM: the server's clean stop (in-flight requests finish). */
  async terminate(): Promise<void> {
    await this.#signal('SIGTERM');
  }

  async #signal(signal: NodeJS.Signals) {
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill(signal);
    await exited;
  }
}

export interface Cluster {
  /** HAProxy's URL: what clients use. */
  url: string;
  balancer: Balancer;
  replicas: Replica[];
  /** The database itself (not through PgBouncer). */
  databaseUrl: string;
  anonKey: string;
  serviceRoleKey: string;
  stop(): Promise<void>;
}

/**
 * PgBouncer (transaction mode) in front of the database `db` (a fresh one: `drop` removes
 * it at the end), `count` replicas through it sharing a storage directory, trusting
 * HAProxy (127.0.0.1), with the project `files` (config.toml, migrations/…), and HAProxy.
 */
export async function startReplicas(
  db: { url: string; drop: () => Promise<void> },
  count: number,
  files: Record<string, string>,
): Promise<Cluster> {
  const cleanups: (() => Promise<void>)[] = [db.drop];
  const stop = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  };
  try {
    const bouncer: ProxyProcess = await startPgBouncer(db.url, 6);
    cleanups.push(bouncer.stop);
    const pooled = new URL(db.url);
    pooled.port = String(bouncer.port);
    const dir = await mkdtemp(join(tmpdir(), 'replicas-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const project = join(dir, 'project');
    for (const [name, text] of Object.entries(files)) {
      await mkdir(join(project, name, '..'), { recursive: true });
      await writeFile(join(project, name), text);
    }
    const args = [
      '--project',
      project,
      '--database-url',
      pooled.toString(),
      '--direct-url',
      db.url,
      '--storage-dir',
      join(dir, 'storage'),
      '--trusted-proxy',
      '127.0.0.1',
      '--no-console',
    ];
    const replicas: Replica[] = [];
    for (let i = 0; i < count; i++) replicas.push(new Replica(`r${i}`, await freePort(), args));
    cleanups.push(async () => {
      await Promise.all(replicas.map((r) => r.terminate()));
    });
    // One first (it applies the migrations), then the others.
    await replicas[0]?.start();
    await Promise.all(replicas.slice(1).map((r) => r.start()));
    const first = replicas[0] as Replica;
    const balancer = await startHaproxy(
      replicas.map((r) => r.port),
      first.publishableKey,
    );
    cleanups.push(balancer.stop);
    for (const r of replicas) await balancer.waitFor(r.name, 'UP');
    return {
      url: `http://127.0.0.1:${balancer.port}`,
      balancer,
      replicas,
      databaseUrl: db.url,
      anonKey: first.anonKey,
      serviceRoleKey: first.serviceRoleKey,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * A TCP proxy that forwards what the client sends at `bytesPerSecond`, so a request body is
 * still on its way when a test acts; `arm(n, fn)` calls `fn` once `n` more bytes went by.
 */
export async function throttlingProxy(target: number, bytesPerSecond: number) {
  let forwarded = 0;
  let trigger: { at: number; fn: () => void } | null = null;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(target, '127.0.0.1');
    sockets.add(client).add(upstream);
    client.on('data', (data: Buffer) => {
      forwarded += data.length;
      if (trigger && forwarded >= trigger.at) {
        const fire = trigger.fn;
        trigger = null;
        fire();
      }
      upstream.write(data);
      client.pause();
      setTimeout(() => client.resume(), (data.length / bytesPerSecond) * 1000);
    });
    upstream.on('data', (data) => client.write(data));
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    arm(bytes: number, fn: () => void) {
      trigger = { at: forwarded + bytes, fn };
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}
