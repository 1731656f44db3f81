/**
 * Three replicas behind a real HAProxy, through PgBouncer, while they die and restart:
 * tus uploads survive a replica SIGKILLed mid-PATCH (resumed through another replica, byte
 * for byte, no acknowledged byte lost), inserts survive rolling restarts (none lost, none
 * twice), and auth rate limits stay per client through the balancer.
 *
 * REPLICA_KILLS (default 20, taking turns over the replicas) and REPLICA_INSERTS (default
 * 10,000 rows, sent REPLICA_INSERT_BATCH = 1 row a request, over at least one rolling restart)
 * size the first two: the counts, in CI.
 */
import { createHash, randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { createClient } from '@supabase/supabase-js';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { POLICIES } from '../storage/support';
import { startTus } from '../storage/tus-support';
import { createTestDatabase, databaseKind } from '../support/server';
import { until } from '../support/until';
import { type Cluster, type Replica, startReplicas, throttlingProxy } from './cluster';

const KILLS = Number(process.env.REPLICA_KILLS ?? 20);
const INSERTS = Number(process.env.REPLICA_INSERTS ?? 10_000);
const BATCH = Number(process.env.REPLICA_INSERT_BATCH ?? 1);
const MiB = 1024 * 1024;

const PROJECT = {
  'config.toml': '[auth.rate_limit]\nsign_in_sign_ups = 4\n',
  'migrations/0001_schema.sql': `
create table public.items (id bigint generated always as identity primary key, k int not null);
grant select, insert on public.items to anon;
${POLICIES}
insert into storage.buckets (id, name) values ('files', 'files');
`,
};

const sha256 = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');

/** One POST through the balancer from the local address `from` (127.0.0.x). */
function postFrom(
  url: string,
  from: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        localAddress: from,
        headers: { 'content-type': 'application/json', ...headers },
      },
      (res) => {
        let text = '';
        res.on('data', (d) => {
          text += d;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    req.once('error', reject);
    req.end(JSON.stringify(body));
  });
}

describe.skipIf(databaseKind() === 'pglite')(
  'replicas behind HAProxy, killed and restarted',
  () => {
    let cluster: Cluster;

    beforeAll(async () => {
      const db = await createTestDatabase();
      if (!db) throw new Error('no PostgreSQL');
      cluster = await startReplicas(db, 3, PROJECT);
    }, 90_000);

    afterAll(async () => {
      await cluster?.stop();
    });

    it(
      `tus uploads complete, byte for byte, with a replica SIGKILLed mid-PATCH (${KILLS} kills)`,
      async () => {
        const proxy = await throttlingProxy(cluster.balancer.port, 8 * MiB);
        const restarting = new Map<Replica, Promise<void>>();
        const { replicas } = cluster;
        const upAgain = async (r: Replica) => {
          await restarting.get(r);
          await cluster.balancer.waitFor(r.name, 'UP');
        };
        try {
          for (let i = 0; i < KILLS; i++) {
            // Killed in turn: the target (killed three uploads ago) and the next one (two ago)
            // up, the one killed by the last upload may still be restarting meanwhile.
            const target = replicas[i % replicas.length] as Replica;
            await upAgain(target);
            await upAgain(replicas[(i + 1) % replicas.length] as Replica);
            const body = randomBytes(3 * MiB + 1234);
            const name = `kill-${i}.bin`;
            let retries = 0;
            // Past the creation and the first 1 MiB PATCH: halfway through the second PATCH.
            proxy.arm(1.5 * MiB, () => {
              restarting.set(
                target,
                target.kill().then(() => target.start()),
              );
            });
            const run = startTus(body, {
              endpoint: `${proxy.url}/storage/v1/upload/resumable`,
              chunkSize: MiB,
              retryDelays: [50, 200, 500, 1000, 1000, 2000, 2000],
              // Every request aimed at the replica about to die while it is up.
              headers: {
                authorization: `Bearer ${cluster.serviceRoleKey}`,
                apikey: cluster.anonKey,
                'x-replica': target.name,
              },
              metadata: { bucketName: 'files', objectName: name },
              onShouldRetry: () => {
                retries++;
                return true;
              },
            });
            await run.done.catch((error) => {
              throw new Error(`upload ${i} (${target.name} killed): ${String(error)}`);
            });
            expect(retries, `upload ${i} was interrupted`).toBeGreaterThan(0);
            // Resumed where the last acknowledged PATCH ended: at most the chunk in flight lost.
            let acknowledged = 0;
            let resumes = 0;
            for (const r of run.responses) {
              if (r.method === 'PATCH' && r.status === 204) acknowledged = r.offset;
              if (r.method === 'HEAD' && r.status === 200) {
                resumes++;
                expect(r.offset, `upload ${i}: resumed at`).toBeGreaterThanOrEqual(acknowledged);
                expect(r.offset, `upload ${i}: resumed at`).toBeLessThanOrEqual(body.length);
              }
            }
            expect(resumes, `upload ${i} resumed`).toBeGreaterThan(0);
            const res = await fetch(`${cluster.url}/storage/v1/object/files/${name}`, {
              headers: { authorization: `Bearer ${cluster.serviceRoleKey}` },
            });
            expect(res.status).toBe(200);
            expect(sha256(new Uint8Array(await res.arrayBuffer()))).toBe(sha256(body));
          }
        } finally {
          await Promise.all(restarting.values());
          await proxy.close();
        }
        for (const r of replicas) await cluster.balancer.waitFor(r.name, 'UP');
      },
      60_000 + KILLS * 15_000,
    );

    it(
      `inserts through supabase-js during rolling restarts: ${INSERTS}+ rows (${BATCH} a request), none lost, none twice`,
      async () => {
        const api = createClient(cluster.url, cluster.anonKey, {
          auth: { autoRefreshToken: false, persistSession: false },
          realtime: { transport: WebSocket as never },
        });
        let next = 0;
        let rounds = 0;
        const failures: string[] = [];
        const done = () => next >= INSERTS && rounds >= 1;
        const worker = async () => {
          while (!done()) {
            const k = next;
            next += BATCH;
            const rows = Array.from({ length: BATCH }, (_, j) => ({ k: k + j }));
            const { error } = await api.from('items').insert(rows);
            if (error) failures.push(`${k}: ${error.message}`);
          }
        };
        const restarter = async () => {
          while (!done()) {
            for (const r of cluster.replicas) {
              // The rolling restart of deploy/README.md: out of the balancer, stopped, back in.
              await cluster.balancer.command(`set server replicas/${r.name} state drain`);
              await until(async () => {
                const stat = await cluster.balancer.command('show stat');
                const row = stat.split('\n').find((l) => l.startsWith(`replicas,${r.name},`));
                return row?.split(',')[4] === '0';
              });
              await r.terminate();
              await r.start();
              await cluster.balancer.command(`set server replicas/${r.name} state ready`);
              await cluster.balancer.waitFor(r.name, 'UP');
            }
            rounds++;
          }
        };
        await Promise.all([restarter(), ...Array.from({ length: 6 }, worker)]);
        expect(failures).toEqual([]);
        const sql = postgres(cluster.databaseUrl, { max: 1, onnotice: () => {} });
        try {
          const [row] = await sql<{ rows: number; keys: number; top: number }[]>`
        select count(*)::int as rows, count(distinct k)::int as keys, max(k)::int as top
        from public.items`;
          if (process.env.REPLICA_DEBUG) console.log({ ...row, sent: next, rounds, failures });
          expect(row).toEqual({ rows: next, keys: next, top: next - 1 });
        } finally {
          await sql.end();
        }
        expect(rounds).toBeGreaterThanOrEqual(1);
      },
      60_000 + INSERTS * 20,
    );

    it('auth rate limits: one budget per client address across the replicas; X-Forwarded-For sent by the client changes nothing', async () => {
      const token = `${cluster.url}/auth/v1/token?grant_type=password`;
      const signIn = (from: string, extra: Record<string, string> = {}) =>
        postFrom(
          token,
          from,
          { email: 'nobody@example.com', password: 'wrong-password' },
          { apikey: cluster.anonKey, ...extra },
        );
      // The budget (4) spent from 127.0.0.2, through the replicas (round robin).
      for (let i = 0; i < 4; i++) expect((await signIn('127.0.0.2')).status).toBe(400);
      const over = await signIn('127.0.0.2');
      expect(over.status).toBe(429);
      expect(over.body.error_code).toBe('over_request_rate_limit');
      // A client naming another address itself is still counted under its own.
      expect((await signIn('127.0.0.2', { 'x-forwarded-for': '203.0.113.9' })).status).toBe(429);
      // Another client address has its own budget.
      expect((await signIn('127.0.0.3')).status).toBe(400);
    });
  },
);
