/**
 * A real PostgreSQL server for the suites that run against one: a temp cluster per test
 * run (initdb as the `postgres` user when we are root, since the server refuses root),
 * started on a free port and removed at the end even when tests fail.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function findPgBin(): string {
  const candidates = [
    process.env.PG_BIN,
    ...(existsSync('/usr/lib/postgresql')
      ? readdirSync('/usr/lib/postgresql')
          .sort((a, b) => Number(b) - Number(a))
          .map((v) => `/usr/lib/postgresql/${v}/bin`)
      : []),
  ].filter((dir): dir is string => !!dir && existsSync(join(dir, 'initdb')));
  const found = candidates[0];
  if (!found) {
    throw new Error(
      'PostgreSQL server binaries not found (looked in PG_BIN and /usr/lib/postgresql/*/bin). ' +
        'Install them with `apt-get install -y postgresql` (as root), or set PG_BIN.',
    );
  }
  return found;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface Cluster {
  /** Admin URL (database `postgres`, user `postgres`). */
  url: string;
  stop(): void;
}

export interface ClusterOptions {
  /** The server binaries' directory (default: findPgBin()). */
  bin?: string;
  /** Settings written into the cluster's postgresql.conf before it starts. */
  settings?: Record<string, string>;
  /** Where its temp dir is made. Default the system's temp dir. */
  parent?: string;
}

export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  const bin = options.bin ?? findPgBin();
  const root = mkdtempSync(join(options.parent ?? tmpdir(), 'pg-cluster-'));
  const data = join(root, 'data');
  const asRoot = process.getuid?.() === 0;
  const run = (cmd: string, args: string[]) => {
    const full = join(bin, cmd);
    if (asRoot) {
      const quoted = [full, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
      execFileSync('su', ['postgres', '-s', '/bin/sh', '-c', quoted], { stdio: 'pipe' });
    } else {
      execFileSync(full, args, { stdio: 'pipe' });
    }
  };
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(root, uid, gid);
  }
  const port = await freePort();
  try {
    run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
    const settings = Object.entries(options.settings ?? {});
    if (settings.length > 0) {
      const lines = settings.map(([name, value]) => `${name} = '${value.replace(/'/g, "''")}'\n`);
      appendFileSync(join(data, 'postgresql.conf'), lines.join(''));
    }
    run('pg_ctl', [
      '-D',
      data,
      '-l',
      join(root, 'server.log'),
      '-w',
      '-t',
      '30',
      'start',
      '-o',
      `-p ${port} -k ${root} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300`,
    ]);
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    const stderr = (error as { stderr?: Buffer }).stderr?.toString() ?? '';
    throw new Error(`could not start PostgreSQL: ${stderr || String(error)}`);
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop() {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    },
  };
}
