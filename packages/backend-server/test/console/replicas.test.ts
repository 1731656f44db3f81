/**
 * The console of two servers on one PostgreSQL: one token opens either console (the first
 * server to start stores it), and wrong passwords are counted in the database, so trying
 * them on both servers in turn does not double the allowance. Either console shows the
 * requests both servers answered, each tagged with its server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StartServerOptions } from '../../src/config/index';
import { TOKEN_HEADER } from '../../src/console/index';
import { ClusterLog, LiveLog } from '../../src/logs/index';
import { type RunningServer, startServer } from '../../src/server';
import { createTestDatabase, databaseKind } from '../support/server';
import { until } from '../support/until';

let a: RunningServer;
let b: RunningServer;
let drop: () => Promise<void>;

const tokenOf = (server: RunningServer) =>
  new URL(server.consoleUrl ?? '').hash.slice('#token='.length);

const session = async (server: RunningServer, token: string) => {
  const res = await fetch(`${server.url}/_console/api/session`, {
    headers: { [TOKEN_HEADER]: token },
  });
  await res.body?.cancel();
  return res.status;
};

const login = async (server: RunningServer, password: string) => {
  const res = await fetch(`${server.url}/_console/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ password }),
  });
  return { status: res.status, body: (await res.json()) as { token?: string } };
};

describe.skipIf(databaseKind() === 'pglite')('the console of two servers', () => {
  beforeAll(async () => {
    const db = await createTestDatabase();
    if (!db) throw new Error('no PostgreSQL');
    drop = db.drop;
    const options: StartServerOptions = {
      port: 0,
      databaseUrl: db.url,
      console: { password: 'console-password' },
    };
    [a, b] = await Promise.all([startServer(options), startServer(options)]);
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await drop?.();
  });

  it('accepts on either server the token of the other', async () => {
    const token = tokenOf(a);
    expect(token.length).toBeGreaterThanOrEqual(16);
    expect(tokenOf(b)).toBe(token);
    expect(await session(b, token)).toBe(200);
    expect(await session(a, token)).toBe(200);
    expect(await session(b, `${token}x`)).toBe(401);
    const signedIn = await login(a, 'console-password');
    expect(signedIn.status).toBe(200);
    expect(await session(b, signedIn.body.token ?? '')).toBe(200);
  });

  it('counts wrong passwords on both servers together', async () => {
    for (const server of [a, b, a, b, a]) {
      expect((await login(server, 'wrong')).status).toBe(401);
    }
    expect((await login(b, 'console-password')).status).toBe(429);
    expect((await login(a, 'console-password')).status).toBe(429);
  });

  it("shows on either console the requests both servers answered, tagged with each server's name", async () => {
    const token = tokenOf(a);
    const logs = async (server: RunningServer, after = 0) => {
      const res = await fetch(`${server.url}/_console/api/logs?after=${after}`, {
        headers: { [TOKEN_HEADER]: token },
      });
      return (await res.json()) as {
        entries: { seq: number; path?: string; replica?: string }[];
        lastSeq: number;
      };
    };
    const before = (await logs(a)).lastSeq;
    const streamed = new AbortController();
    const stream = await fetch(
      `${a.url}/_console/api/logs/stream?after=${Number.MAX_SAFE_INTEGER}`,
      {
        headers: { [TOKEN_HEADER]: token },
        signal: streamed.signal,
      },
    );
    for (const server of [a, b]) {
      const res = await fetch(`${server.url}/auth/v1/health`, {
        headers: { apikey: server.anonKey },
      });
      await res.body?.cancel();
    }
    const both = (entries: { path?: string; replica?: string }[]) =>
      entries.filter((e) => e.path === '/auth/v1/health');
    // A console on either server lists both requests, each with its server's replica name.
    for (const server of [a, b]) {
      const seen = await until(async () => {
        const found = both((await logs(server, before)).entries);
        return found.length === 2 ? found : null;
      });
      expect(new Set(seen.map((e) => e.replica)).size).toBe(2);
    }
    // A's live stream carries B's request too.
    const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (
      both(
        text
          .trim()
          .split('\n')
          .flatMap((l) => (l ? JSON.parse(l) : [])),
      ).length < 2
    ) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value);
    }
    streamed.abort();
    const lines = text
      .trim()
      .split('\n')
      .flatMap((l) => JSON.parse(l) as { seq: number }[]);
    expect(lines.map((e) => e.seq)).toEqual([...lines.map((e) => e.seq)].sort((x, y) => x - y));
  });

  it('keeps the newest entries of the cluster up to its capacity', async () => {
    const live = new LiveLog(10);
    const log = new ClusterLog(a.db, live, {
      replica: 'sweeper',
      maxRows: 3,
      flushMs: 3_600_000,
      sweepMs: 3_600_000,
    });
    try {
      for (let i = 1; i <= 5; i += 1)
        live.push({ kind: 'function', source: 'f', message: `m${i}` });
      await log.flush();
      await log.sweep();
      const kept = (await log.since(0)).filter((e) => e.replica === 'sweeper');
      expect(kept.map((e) => [e.replica, e.message])).toEqual([
        ['sweeper', 'm3'],
        ['sweeper', 'm4'],
        ['sweeper', 'm5'],
      ]);
    } finally {
      await log.stop();
    }
  });
});
