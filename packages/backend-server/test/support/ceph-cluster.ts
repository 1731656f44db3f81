/**
 * A real S3 server for the S3 backend's suites: a single-node Ceph cluster in a temp dir
 * (one mon, one mgr, one OSD with BlueStore on a sparse file, cephx on) and radosgw (beast
 * frontend) on a free port, with one S3 user. Debian's packages (`node
 * scripts/ensure-ceph.mjs`); `cephAvailable()` says whether they are installed.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';

const run = promisify(execFile);

/** The daemons and tools the cluster needs, all from Debian's ceph packages. */
const BINARIES = ['ceph-mon', 'ceph-mgr', 'ceph-osd', 'radosgw', 'radosgw-admin', 'ceph'];

/** True when every Ceph binary the cluster needs is on this machine. */
export function cephAvailable(): boolean {
  return BINARIES.every((name) =>
    ['/usr/bin', '/usr/sbin', '/usr/local/bin'].some((dir) => existsSync(join(dir, name))),
  );
}

/** What a test needs to reach the cluster's radosgw. */
export interface CephS3 {
  endpoint: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
}

export interface CephCluster extends CephS3 {
  stop(): Promise<void>;
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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it returns true, failing after `ms` with `what` and the last error. */
async function until(what: string, ms: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + ms;
  let last: unknown = null;
  while (Date.now() < deadline) {
    try {
      if (await check()) return;
    } catch (error) {
      last = error;
    }
    await sleep(250);
  }
  throw new Error(`ceph: ${what} not ready after ${ms} ms${last ? `: ${String(last)}` : ''}`);
}

function config(dir: string, fsid: string, monPort: number): string {
  return `[global]
fsid = ${fsid}
mon host = v2:127.0.0.1:${monPort}
mon initial members = a
auth cluster required = cephx
auth service required = cephx
auth client required = cephx
public network = 127.0.0.0/8
ms bind ipv6 = false
run dir = ${dir}/run
admin socket = ${dir}/run/$name.asok
log file = ${dir}/log/$name.log
log to stderr = false
err to stderr = true
mon cluster log file = ${dir}/log/cluster.log
keyring = ${dir}/keyring
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
mon allow pool size one = true
mon max pg per osd = 1000
mon allow pool delete = true
osd crush chooseleaf type = 0
mon data avail warn = 1
mon data avail crit = 0
[mon]
mon data = ${dir}/mon/$cluster-$id
[mgr]
mgr data = ${dir}/mgr/$cluster-$id
keyring = ${dir}/mgr/$cluster-$id/keyring
mgr disabled modules = dashboard prometheus restful
[osd]
osd data = ${dir}/osd/$cluster-$id
keyring = ${dir}/osd/$cluster-$id/keyring
osd objectstore = bluestore
bluestore block path = ${dir}/osd/block
bluestore block create = true
bluestore block size = 21474836480
bluestore fsck on mkfs = false
bluestore fsck on mount = false
osd memory target = 939524096
bluestore cache autotune = false
bluestore cache size = 134217728
osd op num shards = 1
osd op num threads per shard = 2
[client]
rgw data = ${dir}/rgw/$cluster-$id
rgw dns name = localhost
rgw enable usage log = false
rgw thread pool size = 64
`;
}

/** Makes `bucket` on the cluster's radosgw (as its S3 user, path style). */
export async function createBucket(s3: CephS3, bucket: string): Promise<void> {
  const client = new S3Client({
    endpoint: s3.endpoint,
    region: s3.region,
    forcePathStyle: true,
    credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
  });
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  client.destroy();
}

/**
 * Starts the cluster and radosgw; resolves once an S3 request is answered. Everything it
 * wrote is under one temp dir (in `parent`, default the system's), removed by `stop()`.
 */
export async function startCeph(parent = tmpdir()): Promise<CephCluster> {
  const dir = await mkdtemp(join(parent, 'ceph-cluster-'));
  const conf = join(dir, 'ceph.conf');
  const fsid = randomUUID();
  const [monPort, rgwPort] = [await freePort(), await freePort()];
  for (const sub of ['run', 'log', 'mon/ceph-a', 'mgr/ceph-x', 'osd/ceph-0', 'rgw/ceph-rgw.a'])
    await mkdir(join(dir, sub), { recursive: true });
  await writeFile(conf, config(dir, fsid, monPort));
  const children: ChildProcess[] = [];
  const ceph = (args: string[]) => run('ceph', ['-c', conf, ...args], { timeout: 30_000 });
  const daemon = (bin: string, args: string[]) => {
    const child = spawn(bin, ['-f', '-c', conf, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-4000);
    });
    child.on('exit', (code) => {
      if (code && !stopping) console.error(`ceph: ${bin} exited with ${code}: ${stderr}`);
    });
    children.push(child);
  };
  let stopping = false;
  const stop = async () => {
    stopping = true;
    for (const child of children.reverse()) {
      if (child.exitCode !== null) continue;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await Promise.race([exited, sleep(5000)]);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const keyring = join(dir, 'keyring');
    await run('ceph-authtool', [
      '--create-keyring',
      keyring,
      '--gen-key',
      '-n',
      'mon.',
      '--cap',
      'mon',
      'allow *',
    ]);
    await run('ceph-authtool', [
      keyring,
      '--gen-key',
      '-n',
      'client.admin',
      '--cap',
      'mon',
      'allow *',
      '--cap',
      'osd',
      'allow *',
      '--cap',
      'mgr',
      'allow *',
      '--cap',
      'mds',
      'allow *',
    ]);
    const monmap = join(dir, 'monmap');
    await run('monmaptool', [
      '--create',
      '--addv',
      'a',
      `[v2:127.0.0.1:${monPort}]`,
      '--fsid',
      fsid,
      monmap,
    ]);
    await run('ceph-mon', [
      '-c',
      conf,
      '--mkfs',
      '-i',
      'a',
      '--monmap',
      monmap,
      '--keyring',
      keyring,
    ]);
    daemon('ceph-mon', ['-i', 'a']);
    await until('mon', 20_000, async () => (await ceph(['mon', 'stat'])).stdout.includes('quorum'));

    // The manager: its key, then the daemon (radosgw does not need it; the cluster expects one).
    await ceph([
      'auth',
      'get-or-create',
      'mgr.x',
      'mon',
      'allow profile mgr',
      'osd',
      'allow *',
      'mds',
      'allow *',
      '-o',
      join(dir, 'mgr/ceph-x/keyring'),
    ]);
    daemon('ceph-mgr', ['-i', 'x']);

    // One OSD: BlueStore on a sparse file (`bluestore block path`, created by mkfs).
    const osdUuid = randomUUID();
    const osdKeyring = join(dir, 'osd/ceph-0/keyring');
    const osdSecret = (await run('ceph-authtool', ['--gen-print-key'])).stdout.trim();
    await writeFile(join(dir, 'osd-secret.json'), JSON.stringify({ cephx_secret: osdSecret }));
    const id = (
      await ceph(['osd', 'new', osdUuid, '-i', join(dir, 'osd-secret.json')])
    ).stdout.trim();
    if (id !== '0') throw new Error(`ceph: unexpected OSD id ${id}`);
    await run('ceph-authtool', [
      '--create-keyring',
      osdKeyring,
      '--name',
      'osd.0',
      '--add-key',
      osdSecret,
    ]);
    await run('ceph-osd', ['-c', conf, '-i', '0', '--mkfs', '--osd-uuid', osdUuid], {
      timeout: 60_000,
    });
    daemon('ceph-osd', ['-i', '0']);
    await until('osd', 40_000, async () => {
      const { stdout } = await ceph(['osd', 'stat', '-f', 'json']);
      return (JSON.parse(stdout) as { num_up_osds: number }).num_up_osds === 1;
    });

    // radosgw: its key (it creates its pools itself), beast on a free port.
    await ceph([
      'auth',
      'get-or-create',
      'client.rgw.a',
      'mon',
      'allow rw',
      'osd',
      'allow rwx',
      'mgr',
      'allow rw',
      '-o',
      join(dir, 'rgw/ceph-rgw.a/keyring'),
    ]);
    daemon('radosgw', [
      '-n',
      'client.rgw.a',
      '--keyring',
      join(dir, 'rgw/ceph-rgw.a/keyring'),
      '--rgw-frontends',
      `beast endpoint=127.0.0.1:${rgwPort}`,
    ]);
    const endpoint = `http://127.0.0.1:${rgwPort}`;
    await until('radosgw', 40_000, async () => (await fetch(endpoint)).status < 500);

    const accessKeyId = `TEST${randomBytes(8).toString('hex').toUpperCase()}`;
    const secretAccessKey = randomBytes(20).toString('base64url');
    await run(
      'radosgw-admin',
      [
        '-c',
        conf,
        'user',
        'create',
        '--uid',
        'tests',
        '--display-name',
        'tests',
        '--access-key',
        accessKeyId,
        '--secret-key',
        secretAccessKey,
      ],
      { timeout: 30_000 },
    );
    return { endpoint, region: 'us-east-1', accessKeyId, secretAccessKey, stop };
  } catch (error) {
    const logs = await readFile(join(dir, 'log/osd.0.log'), 'utf8').catch(() => '');
    await stop();
    throw new Error(`${String(error)}${logs ? `\nosd log tail:\n${logs.slice(-2000)}` : ''}`);
  }
}
