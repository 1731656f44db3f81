/**
 * globalSetup of both projects: a Ceph cluster with radosgw for the S3 backend's suites,
 * started on first demand (a run without those suites never starts it) and shared by every
 * file and both projects of the run. Files reach it through a control URL
 * (`inject('cephControlUrl')`, `s3Server()` in test/storage/s3-backend-support.ts).
 */
import { createServer, type Server } from 'node:http';
import type { TestProject } from 'vitest/node';
import { type CephCluster, cephAvailable, startCeph } from './ceph-cluster';

declare module 'vitest' {
  export interface ProvidedContext {
    /** GET it for the run's radosgw (JSON: its endpoint and keys, or why there is none). */
    cephControlUrl: string;
  }
}

interface Shared {
  cluster: Promise<CephCluster> | null;
  users: number;
}
const KEY = Symbol.for('backend-server.test.ceph');
const holder = globalThis as Record<symbol, Shared | undefined>;
if (!holder[KEY]) holder[KEY] = { cluster: null, users: 0 };
const shared = holder[KEY];

async function answer(): Promise<unknown> {
  if (!cephAvailable())
    return { available: false, reason: 'Ceph is not installed (node scripts/ensure-ceph.mjs)' };
  shared.cluster ??= startCeph();
  const { stop: _stop, ...s3 } = await shared.cluster;
  return { available: true, ...s3 };
}

export default async function setup(project: TestProject) {
  shared.users++;
  const server: Server = createServer((_req, res) => {
    answer().then(
      (body) =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body)),
      (error: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(String(error)),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  project.provide('cephControlUrl', `http://127.0.0.1:${port}`);
  return async () => {
    server.close();
    if (--shared.users > 0 || !shared.cluster) return;
    const cluster = shared.cluster;
    shared.cluster = null;
    await (await cluster.catch(() => null))?.stop();
  };
}
