/**
 * Replicas behind HAProxy through PgBouncer (issue 26, items 5 and 6), the layout of
 * `deploy/`: two `backend-server start` processes on a temp cluster.
 *
 * - idle RSS of one replica (VmRSS, 5 s after it started, nothing asked of it);
 * - tus resume on another replica after a kill: a 4 MiB upload aimed at r0, r0 SIGKILLed
 *   halfway through its second PATCH; time from the kill to the first PATCH another replica
 *   accepts (the client retries at once). Goal ≤ 2 s.
 */

import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { startReplicas, throttlingProxy } from '../test/replicas/cluster';
import { POLICIES } from '../test/storage/support';
import { startTus } from '../test/storage/tus-support';
import { startCluster } from '../test/support/postgres-cluster';

const MiB = 1024 * 1024;

const PROJECT = {
  'config.toml': '',
  'migrations/0001_files.sql': `${POLICIES}\ninsert into storage.buckets (id, name) values ('files', 'files');`,
};

const rssMiB = (pid: number) => {
  const line = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(line?.[1] ?? 0) / 1024;
};

export default async function main(): Promise<void> {
  console.log(`load average ${(loadavg()[0] ?? 0).toFixed(1)}`);
  const pg = await startCluster();
  const cluster = await startReplicas({ url: pg.url, drop: async () => pg.stop() }, 2, PROJECT);
  try {
    const [r0, r1] = cluster.replicas;
    if (!r0?.child?.pid || !r1) throw new Error('replicas did not start');
    await new Promise((r) => setTimeout(r, 5000));
    console.log(`idle RSS of one replica: ${rssMiB(r0.child.pid).toFixed(0)} MiB`);

    const proxy = await throttlingProxy(cluster.balancer.port, 8 * MiB);
    let killedAt = 0;
    let resumedAt = 0;
    proxy.arm(1.5 * MiB, () => {
      killedAt = performance.now();
      void r0.kill();
    });
    const run = startTus(randomBytes(4 * MiB), {
      endpoint: `${proxy.url}/storage/v1/upload/resumable`,
      chunkSize: MiB,
      retryDelays: [0, 100, 200, 500, 1000],
      headers: {
        authorization: `Bearer ${cluster.serviceRoleKey}`,
        apikey: cluster.anonKey,
        'x-replica': 'r0',
      },
      metadata: { bucketName: 'files', objectName: 'bench.bin' },
      onAfterResponse: (req, res) => {
        if (killedAt && !resumedAt && req.getMethod() === 'PATCH' && res.getStatus() === 204) {
          resumedAt = performance.now();
        }
      },
    });
    await run.done;
    await proxy.close();
    const ms = resumedAt - killedAt;
    console.log(`tus resume on another replica after a kill: ${ms.toFixed(0)} ms (goal ≤ 2000 ms)`);
  } finally {
    await cluster.stop();
  }
}
