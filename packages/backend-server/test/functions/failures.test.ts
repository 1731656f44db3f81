import { FunctionsHttpError, type SupabaseClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server';
import { SERVICES } from '../../src/service-registry';
import { startTestServer } from '../support/server';
import { client, functionLog, probeService, startTimer, writeProject } from './support';

const WALL_TIME_MS = 1500;
const IDLE_MS = 3000;

const FUNCTIONS: Record<string, string> = {
  'good/index.ts': `
    let calls = 0;
    export default () => Response.json({ ok: true, calls: ++calls });`,
  'boot-throw/index.ts': `
    throw new Error('configuration missing');
    export default () => new Response('never');`,
  'syntax/index.ts': `
    export default () => new Response('unclosed';`,
  'no-handler/index.ts': `
    export const answer = 42;`,
  'url-import/index.ts': `
    import { x } from 'https://example.com/mod.ts';
    export default () => new Response(String(x));`,
  'throws/index.ts': `
    let calls = 0;
    export default () => {
      calls += 1;
      if (calls === 1) throw new Error('handler failed');
      return Response.json({ calls });
    };`,
  'bad-return/index.ts': `
    Deno.serve(() => ({ not: 'a response' }) as unknown as Response);`,
  'loop/index.ts': `
    export default () => { for (;;) {} };`,
  'slow/index.ts': `
    export default async () => {
      await new Promise((r) => setTimeout(r, 60_000));
      return new Response('late');
    };`,
  'reject/index.ts': `
    export default async () => {
      Promise.reject(new Error('nobody listens'));
      await new Promise((r) => setTimeout(r, 500));
      return new Response('should not arrive');
    };`,
  'oom/index.ts': `
    export default () => {
      const keep: unknown[] = [];
      for (;;) keep.push(Array.from({ length: 100_000 }, (_, i) => ({ i })));
    };`,
  'exit/index.ts': `
    export default () => { Deno.exit(3); return new Response('no'); };`,
  'stream-dies/index.ts': `
    export default () => new Response(new ReadableStream({
      start(c) { c.enqueue(new TextEncoder().encode('partial')); setTimeout(() => { throw new Error('later'); }, 50); },
    }));`,
};

const BOOT_ERROR = { code: 'BOOT_ERROR', message: 'Worker failed to boot (please check logs)' };
const WORKER_ERROR = {
  code: 'WORKER_ERROR',
  message: 'Function exited due to an error (please check logs)',
};
const WORKER_LIMIT = {
  code: 'WORKER_LIMIT',
  message: 'Worker failed to respond due to a resource limit (please check logs)',
};

describe('functions: failures are reported the hosted way and never take the server down', () => {
  let server: RunningServer;
  let sb: SupabaseClient;

  beforeAll(async () => {
    const { functionsDir } = await writeProject(FUNCTIONS);
    server = await startTestServer(
      {
        functionsDir,
        functions: {
          wallTimeMs: WALL_TIME_MS,
          memoryLimitMb: 48,
          idleTimeoutMs: IDLE_MS,
          verifyJwt: false,
        },
      },
      { services: [...SERVICES, probeService] },
    );
    sb = client(server);
  });
  afterAll(() => server?.stop());

  const call = (name: string) => fetch(`${server.url}/functions/v1/${name}`, { method: 'POST' });

  /** The good function, another service and the database all still answer. */
  async function expectHealthy() {
    const good = await sb.functions.invoke('good');
    expect(good.error).toBeNull();
    expect(good.data).toMatchObject({ ok: true });
    const probe = await fetch(`${server.url}/probe/v1/db`, { headers: { apikey: server.anonKey } });
    expect(probe.status).toBe(200);
    expect(await probe.json()).toEqual({ answer: 42 });
  }

  async function expectError(name: string, status: number, body: unknown) {
    const res = await call(name);
    expect(res.status, name).toBe(status);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('x-relay-error')).toBeNull();
    expect(await res.json()).toEqual(body);
  }

  it('503 BOOT_ERROR for a throw at load, a syntax error, no handler, a URL import', async () => {
    // (A package that is not installed: its 503 names it, see upgrades.test.ts.)
    for (const name of ['boot-throw', 'syntax', 'no-handler', 'url-import']) {
      await expectError(name, 503, BOOT_ERROR);
    }
    // Still failing on the next call, and surfaced by supabase-js as an HTTP error.
    const { error } = await sb.functions.invoke('boot-throw');
    expect(error).toBeInstanceOf(FunctionsHttpError);
    expect(((error as FunctionsHttpError).context as Response).status).toBe(503);
    await expectHealthy();
  });

  it('500 WORKER_ERROR when the handler throws or returns no Response; the function recovers', async () => {
    await expectError('throws', 500, WORKER_ERROR);
    const again = await call('throws');
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ calls: 2 });
    await expectError('bad-return', 500, WORKER_ERROR);
    await expectHealthy();
  });

  it('546 WORKER_LIMIT for an infinite loop, after the wall-clock limit; the worker is replaced', async () => {
    // Started before the call, so it fires before the server's wall-clock timer for the call.
    const limitPassed = startTimer(WALL_TIME_MS);
    await expectError('loop', 546, WORKER_LIMIT);
    expect(limitPassed()).toBe(true);
    expect(await functionLog(server, 'loop')).toEqual([
      `wall-clock limit of ${WALL_TIME_MS} ms reached, worker stopped`,
    ]);
    await expectHealthy();
    // A fresh worker takes the next call (and hits the limit again, cleanly).
    await expectError('loop', 546, WORKER_LIMIT);
  });

  it('546 WORKER_LIMIT for a call that outlives the wall-clock limit', async () => {
    await expectError('slow', 546, WORKER_LIMIT);
    await expectHealthy();
  });

  it('546 WORKER_LIMIT when the function allocates without bound', async () => {
    await expectError('oom', 546, WORKER_LIMIT);
    await expectHealthy();
  });

  it('500 WORKER_ERROR for an unhandled rejection or an exit; the next call gets a new worker', async () => {
    await expectError('reject', 500, WORKER_ERROR);
    await expectError('exit', 500, WORKER_ERROR);
    await expectError('exit', 500, WORKER_ERROR);
    await expectHealthy();
  });

  it('cuts a response off when the worker dies mid-body', async () => {
    const res = await call('stream-dies');
    expect(res.status).toBe(200);
    await expect(res.text()).rejects.toThrow();
    await expectHealthy();
  });

  it('stops a worker after the idle timeout; the next call boots a fresh one', async () => {
    const first = (await sb.functions.invoke('good')).data.calls as number;
    expect((await sb.functions.invoke('good')).data.calls).toBe(first + 1);
    await new Promise((r) => setTimeout(r, IDLE_MS + 500));
    expect((await sb.functions.invoke('good')).data.calls).toBe(1);
  });

  it('keeps serving other calls while one function loops', async () => {
    const looping = call('loop');
    const good = await sb.functions.invoke('good');
    expect(good.data).toMatchObject({ ok: true });
    expect((await looping).status).toBe(546);
  });
});
