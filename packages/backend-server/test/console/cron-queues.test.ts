import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKEN_HEADER } from '../../src/console/index';
import type { RunningServer } from '../../src/server';
import { databaseKind, startTestServer } from '../support/server';

// The console's Cron and Queues APIs, against pg_cron and pgmq created as a migration would.
const assets = mkdtempSync(join(tmpdir(), 'console-assets-'));
mkdirSync(join(assets, 'assets'));
writeFileSync(join(assets, 'index.html'), '<!doctype html><title>console</title>');

let server: RunningServer;
let token: string;

beforeAll(async () => {
  server = await startTestServer({ console: { assetsDir: assets } });
  token = new URL(server.consoleUrl ?? '').hash.replace('#token=', '');
});
afterAll(async () => {
  await server?.stop();
  rmSync(assets, { recursive: true, force: true });
});

// biome-ignore lint/suspicious/noExplicitAny: the tests read JSON answers field by field
const call = async (method: string, path: string, body?: unknown): Promise<[number, any]> => {
  const res = await fetch(`${server.url}/_console/api${path}`, {
    method,
    headers: { [TOKEN_HEADER]: token, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return [res.status, res.status === 204 ? null : await res.json()];
};

describe(`console: cron (${databaseKind()})`, () => {
  it('says when pg_cron is not installed', async () => {
    expect(await call('GET', '/cron')).toEqual([200, { installed: false, jobs: [] }]);
    expect(await call('POST', '/cron/jobs/1/run')).toEqual([
      404,
      { message: 'pg_cron is not installed' },
    ]);
  });

  it('lists jobs, runs one now, pauses and deletes it', async () => {
    await server.db.query('create extension pg_cron');
    await server.db.query('create table public.ticks (at timestamptz default now())');
    await server.db.query(
      `select cron.schedule('tick', '0 3 * * *', 'insert into public.ticks default values')`,
    );
    const [, list] = await call('GET', '/cron');
    expect(list.installed).toBe(true);
    const job = list.jobs[0];
    expect(job).toMatchObject({ jobname: 'tick', schedule: '0 3 * * *', active: true });
    expect(job.lastRun).toBeNull();
    expect(new Date(job.nextRun).getUTCHours()).toBe(3);

    const [status, ran] = await call('POST', `/cron/jobs/${job.jobid}/run`);
    expect(status).toBe(200);
    expect(ran.run).toMatchObject({ status: 'succeeded', return_message: 'INSERT 0 1' });
    expect(ran.run.durationMs).toBeGreaterThanOrEqual(0);
    expect((await server.db.query('select * from public.ticks')).rows).toHaveLength(1);
    const [, runs] = await call('GET', `/cron/jobs/${job.jobid}/runs`);
    expect(runs.map((r: { runid: string }) => r.runid)).toEqual([ran.run.runid]);
    const [, again] = await call('GET', '/cron');
    expect(again.jobs[0].lastRun.status).toBe('succeeded');

    expect(await call('POST', `/cron/jobs/${job.jobid}/active`, { active: false })).toEqual([
      200,
      { active: false },
    ]);
    const [, paused] = await call('GET', '/cron');
    expect(paused.jobs[0]).toMatchObject({ active: false, nextRun: null });
    expect((await call('POST', `/cron/jobs/${job.jobid}/active`, {}))[0]).toBe(400);

    expect(await call('DELETE', `/cron/jobs/${job.jobid}`)).toEqual([204, null]);
    expect((await call('GET', '/cron'))[1].jobs).toEqual([]);
    expect(await call('DELETE', `/cron/jobs/${job.jobid}`)).toEqual([
      404,
      { message: `No job ${job.jobid}` },
    ]);
    expect((await call('GET', '/cron/jobs/x1/runs'))[0]).toBe(400);
  });

  it('records a failed run with Postgres message', async () => {
    await server.db.query(`select cron.schedule('bad', '@daily', 'select 1/0')`);
    const [, list] = await call('GET', '/cron');
    const [, ran] = await call('POST', `/cron/jobs/${list.jobs[0].jobid}/run`);
    expect(ran.run).toMatchObject({ status: 'failed', return_message: 'division by zero' });
  });
});

describe(`console: queues (${databaseKind()})`, () => {
  it('says when pgmq is not installed', async () => {
    expect(await call('GET', '/queues')).toEqual([200, { installed: false, queues: [] }]);
  });

  it('creates a queue, sends, reads, archives, deletes, purges and drops', async () => {
    await server.db.query('create extension pgmq');
    expect(await call('POST', '/queues', { name: 'Jobs' })).toEqual([201, { name: 'jobs' }]);
    expect((await call('POST', '/queues', { name: 'bad;name' }))[1].message).toMatch(
      /invalid characters/,
    );
    const [, a] = await call('POST', '/queues/jobs/send', { message: { n: 1 } });
    const [, b] = await call('POST', '/queues/jobs/send', { message: [2], delay: 60 });
    expect(a.msg_id).toBe('1');
    const stored = await server.db.query(
      'select jsonb_typeof(message) as t from pgmq.q_jobs order by msg_id',
    );
    expect(stored.rows).toEqual([{ t: 'object' }, { t: 'array' }]);
    expect((await call('POST', '/queues/jobs/send', { delay: 1 }))[0]).toBe(400);
    expect((await call('POST', '/queues/jobs/send', { message: 1, delay: -1 }))[0]).toBe(400);

    const [, list] = await call('GET', '/queues');
    expect(list.queues).toEqual([
      expect.objectContaining({ name: 'jobs', length: 2, totalMessages: 2, unlogged: false }),
    ]);
    const [, messages] = await call('GET', '/queues/jobs/messages');
    expect(messages.total).toBe(2);
    expect(messages.messages.map((m: { message: unknown }) => m.message)).toEqual([{ n: 1 }, [2]]);

    const [, read] = await call('POST', '/queues/jobs/read', { vt: 30, qty: 5 });
    expect(read).toEqual([expect.objectContaining({ msg_id: a.msg_id, read_ct: 1 })]);
    expect(await call('POST', '/queues/jobs/read', { vt: 30 })).toEqual([200, []]);

    expect(await call('POST', `/queues/jobs/messages/${a.msg_id}/archive`)).toEqual([204, null]);
    expect((await call('POST', `/queues/jobs/messages/${a.msg_id}/archive`))[0]).toBe(404);
    const [, archived] = await call('GET', '/queues/jobs/messages?archive=1');
    expect(archived.messages).toEqual([
      expect.objectContaining({ msg_id: a.msg_id, message: { n: 1 } }),
    ]);
    expect(archived.messages[0].archived_at).toEqual(expect.any(String));
    expect(await call('DELETE', `/queues/jobs/messages/${b.msg_id}`)).toEqual([204, null]);
    expect((await call('GET', '/queues/jobs/messages'))[1].total).toBe(0);

    await call('POST', '/queues/jobs/send', { message: 'x' });
    expect(await call('POST', '/queues/jobs/purge')).toEqual([200, { deleted: 1 }]);
    expect(await call('GET', '/queues/nope/messages')).toEqual([
      404,
      { message: 'No queue "nope"' },
    ]);
    expect(await call('DELETE', '/queues/jobs')).toEqual([204, null]);
    expect((await call('GET', '/queues'))[1].queues).toEqual([]);
  });
});
