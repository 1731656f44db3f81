import { readFile, writeFile } from 'node:fs/promises';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ROLES_SQL, readAsRequest } from '../../src/db/index';
import { APPLICATION_NAME, Pipeline } from '../../src/db/pipeline';
import { openPostgres } from '../../src/db/postgres';
import type { Database } from '../../src/db/types';
import { connectTarget } from '../../src/db/wire-connect';

// Only in the `postgres` project (vitest.config.ts), which provides the cluster.
const adminUrl = inject('postgresAdminUrl') as string;

function target(url: string) {
  const found = connectTarget(url);
  if (!found) throw new Error(`no target for ${url}`);
  return found;
}

const ctx = (sub: string) => ({
  role: 'authenticated',
  claims: { sub, role: 'authenticated' },
  method: 'GET',
  path: '/pipeline',
  headers: { 'x-request': sub },
});

/** Values of a batch's results, or the error codes. */
const outcome = (settled: Awaited<ReturnType<Database['readBatch']>>) =>
  settled.map((r) => (r.ok ? r.value.rows : (r.error as { code: string }).code));

describe('the pipelined read path (postgres)', () => {
  let admin: postgres.Sql;
  let db: Database;
  let url: string;

  beforeAll(async () => {
    admin = postgres(adminUrl, { onnotice: () => {} });
    const name = `pipeline_${process.pid}_${Date.now()}`;
    await admin.unsafe(`create database ${name}`);
    url = adminUrl.replace(/\/postgres$/, `/${name}`);
    db = await openPostgres({ url, pipelined: 2 });
    // The platform's roles: requests switch to them through the API role.
    await db.exec(ROLES_SQL);
  });
  afterAll(async () => {
    await db?.close();
    await admin?.end();
  });

  /** The pipeline's connections to the test database, as the server lists them. */
  const activeReaders = async () => {
    const rows = await admin.unsafe(
      `select count(*)::int as n from pg_stat_activity where application_name = $1 and datname = $2`,
      [APPLICATION_NAME, new URL(url).pathname.slice(1)],
    );
    return rows[0]?.n as number;
  };

  it('keeps each request to its own role and claims while hundreds share two connections', async () => {
    const subs = Array.from({ length: 300 }, (_, i) => `user-${i}`);
    const seen = await Promise.all(
      subs.map(async (sub) => {
        const [r] = await readAsRequest(db, ctx(sub), [
          {
            text: `select current_user as role, auth_claims ->> 'sub' as sub,
                     current_setting('request.headers')::json ->> 'x-request' as header,
                     current_setting('transaction_read_only') as ro
                   from (select current_setting('request.jwt.claims')::json as auth_claims) c`,
            params: [],
          },
        ]);
        return r?.rows[0];
      }),
    );
    expect(seen).toEqual(
      subs.map((sub) => ({ role: 'authenticated', sub, header: sub, ro: 'on' })),
    );
    // Nothing stays on the connections once a batch is done.
    const [after] = await db.readBatch([
      {
        text: `select current_user as u, current_setting('request.jwt.claims', true) as c`,
        params: [],
      },
    ]);
    expect(after?.ok && after.value.rows).toEqual([{ u: 'postgres', c: '' }]);
  });

  it('carries large results and parameters, and UTF-8, intact', async () => {
    const text = `${'ü😀x'.repeat(300_000)}end`;
    const [r] = await db.readBatch([
      { text: `select $1::text as echo, repeat('ab', $2::int) as big`, params: [text, 2_000_000] },
    ]);
    const row = r?.ok ? (r.value.rows[0] as { echo: string; big: string }) : null;
    expect(row?.echo).toBe(text);
    expect(row?.big.length).toBe(4_000_000);
  });

  it('isolates a failing batch from the batches behind it on the same connection', async () => {
    const pipeline = await Pipeline.open(target(url), 1);
    try {
      const batches = Array.from({ length: 40 }, (_, i) =>
        pipeline.run(
          i % 3 === 1
            ? [
                { text: 'select 1 / $1::int as x', params: ['0'] },
                { text: 'select 2 as y', params: [] },
              ]
            : i % 3 === 2
              ? [{ text: 'selec nonsense', params: [] }]
              : [{ text: 'select $1::int as x, $2::text as t', params: [String(i), null] }],
        ),
      );
      const results = await Promise.all(batches);
      results.forEach((settled, i) => {
        expect(settled).not.toBeNull();
        const got = outcome(settled as NonNullable<typeof settled>);
        if (i % 3 === 1) expect(got).toEqual(['22012', '25P02']);
        else if (i % 3 === 2) expect(got).toEqual(['42601']);
        else expect(got).toEqual([[{ x: i, t: null }]]);
      });
    } finally {
      pipeline.close();
    }
  });

  it('prepares each statement once per connection and closes the least recently used beyond its limit', async () => {
    const pipeline = await Pipeline.open(target(url), 1);
    const hot = 'select $1::text as hot';
    try {
      for (let i = 0; i < 620; i++) {
        const settled = await pipeline.run([
          { text: hot, params: ['h'] },
          { text: `select ${i} as n, $1::text as v`, params: ['v'] },
        ]);
        expect(outcome(settled ?? [])).toEqual([[{ hot: 'h' }], [{ n: i, v: 'v' }]]);
      }
      const [prepared] =
        (await pipeline.run([
          {
            text: `select count(*)::int as n,
                     (count(*) filter (where prepare_time < (
                       select prepare_time from pg_prepared_statements where statement = $1)))::int
                       as older
                   from pg_prepared_statements`,
            params: [hot],
          },
        ])) ?? [];
      const row = prepared?.ok ? (prepared.value.rows[0] as { n: number; older: number }) : null;
      expect(row?.n).toBeGreaterThan(400);
      expect(row?.n).toBeLessThanOrEqual(502);
      // Used by every batch, the hot statement was prepared once and never closed: only the
      // read-only switch, prepared just before it, can be older.
      expect(row?.older).toBeLessThanOrEqual(1);
    } finally {
      pipeline.close();
    }
  });

  it('does not queue reads behind slow ones: they go round them, or through the pool', async () => {
    const order: string[] = [];
    const read = (label: string, text: string) =>
      db.readBatch([{ text, params: [] }]).then((settled) => {
        expect(settled[0]?.ok).toBe(true);
        order.push(label);
      });
    for (let i = 0; i < 100 && (await activeReaders()) < 2; i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    // One slow read on each of the two connections.
    const slow = [read('slow 1', 'select pg_sleep(1.5)'), read('slow 2', 'select pg_sleep(1.5)')];
    await new Promise((r) => setTimeout(r, 300));
    await read('fast', 'select 1 as one');
    await Promise.all(slow);
    expect(order[0]).toBe('fast');

    const single = await Pipeline.open(target(url), 1);
    try {
      const one = [{ text: 'select 1 as one', params: [] }];
      const held = single.run([{ text: 'select pg_sleep(1.5)', params: [] }]);
      const young = single.run(one);
      expect(young).not.toBeNull();
      await new Promise((r) => setTimeout(r, 200));
      expect(single.run(one)).toBeNull();
      await Promise.all([held, young]);
      const after = single.run(one);
      expect(after).not.toBeNull();
      expect(outcome((await after) ?? [])).toEqual([[{ one: 1 }]]);
    } finally {
      single.close();
    }
  });

  it('leaves batches it cannot send to the pool (array parameters, ROLLBACK)', async () => {
    const [arr] = await db.readBatch([{ text: 'select $1::int[] as a', params: [[1, 2]] }]);
    expect(arr?.ok && arr.value.rows[0]).toBeTruthy();
    const [rolled] = await db.readBatch([{ text: 'select 3 as v', params: [] }], {
      rollback: true,
    });
    expect(rolled?.ok && rolled.value.rows).toEqual([{ v: 3 }]);
  });

  it('comes back after its connections are killed', async () => {
    expect(await activeReaders()).toBeGreaterThanOrEqual(2);
    await admin.unsafe(
      `select pg_terminate_backend(pid) from pg_stat_activity
        where application_name like 'backend-server%' and datname = $1`,
      [new URL(url).pathname.slice(1)],
    );
    // Reads keep working (through the pool while the pipeline reconnects) …
    for (let i = 0; i < 50; i++) {
      const settled = await db
        .readBatch([{ text: 'select 1 as one', params: [] }])
        .catch(() => null);
      if (settled) expect(outcome(settled)).toEqual([[{ one: 1 }]]);
      await new Promise((r) => setTimeout(r, 20));
    }
    // … and the pipeline's two connections are back.
    for (let i = 0; i < 100 && (await activeReaders()) < 2; i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(await activeReaders()).toBe(2);
  });

  it('keeps trying while the server refuses connections, and is back when it accepts them', async () => {
    const name = new URL(url).pathname.slice(1);
    await admin.unsafe(`alter database ${name} allow_connections false`);
    try {
      await admin.unsafe(
        `select pg_terminate_backend(pid) from pg_stat_activity
          where application_name = $1 and datname = $2`,
        [APPLICATION_NAME, name],
      );
      // Refused for a while: several attempts fail (0.5, 1, 2 s apart).
      await new Promise((r) => setTimeout(r, 2000));
      expect(await activeReaders()).toBe(0);
    } finally {
      await admin.unsafe(`alter database ${name} allow_connections true`);
    }
    for (let i = 0; i < 200 && (await activeReaders()) < 2; i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(await activeReaders()).toBe(2);
  }, 30_000);

  it('signs in with SCRAM-SHA-256 and MD5 passwords', async () => {
    const hba = (await admin`show hba_file`)[0]?.hba_file as string;
    const original = await readFile(hba, 'utf8');
    const lines = [
      'host all pipe_scram 127.0.0.1/32 scram-sha-256',
      'host all pipe_md5 127.0.0.1/32 md5',
    ];
    await writeFile(hba, `${lines.join('\n')}\n${original}`);
    try {
      await admin`select pg_reload_conf()`;
      await admin.unsafe(`set password_encryption = 'scram-sha-256';
        drop role if exists pipe_scram; create role pipe_scram login password 'sçram pass';
        set password_encryption = 'md5';
        drop role if exists pipe_md5; create role pipe_md5 login password 'md5 pass';`);
      const base = new URL(url);
      for (const [user, password] of [
        ['pipe_scram', 'sçram pass'],
        ['pipe_md5', 'md5 pass'],
      ] as const) {
        base.username = user;
        base.password = encodeURIComponent(password);
        const pipeline = await Pipeline.open(target(base.href), 1);
        const settled = await pipeline.run([{ text: 'select current_user as u', params: [] }]);
        pipeline.close();
        expect(outcome(settled ?? [])).toEqual([[{ u: user }]]);
        base.password = 'wrong';
        await expect(Pipeline.open(target(base.href), 1)).rejects.toMatchObject({
          code: '28P01',
        });
      }
    } finally {
      await writeFile(hba, original);
      await admin`select pg_reload_conf()`;
    }
  });
});
