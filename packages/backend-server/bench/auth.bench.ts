/**
 * Auth throughput, in-process server (PGlite), each figure next to its anchor from the same run:
 * - GET /auth/v1/user (JWT verify + session and user lookups) vs GET /auth/v1/health (HTTP floor);
 * - password sign-in latency vs one bcrypt verify at cost 10 (its floor);
 * - refresh-token grants (rotation in one transaction), sequential.
 */
import { hash, verify } from '@node-rs/bcrypt';
import autocannon from 'autocannon';
import { authService } from '../src/auth/index';
import { devMailService } from '../src/mail/index';
import { startServer } from '../src/server';

async function rate(url: string, headers: Record<string, string>): Promise<number> {
  const result = await autocannon({ url, headers, connections: 10, duration: 3 });
  return result.requests.average;
}

export default async function bench() {
  const server = await startServer(
    { port: 0, auth: { rateLimits: false } },
    { services: [authService, devMailService] },
  );
  try {
    const headers = { apikey: server.anonKey, 'content-type': 'application/json' };
    const base = `${server.url}/auth/v1`;
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${base}${path}`, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
      });
      if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
      return (await res.json()) as { access_token: string; refresh_token: string };
    };
    const email = `bench-${Date.now()}@example.com`;
    const session = await post('/signup', { email, password: 'bench-password' });

    const health = await rate(`${base}/health`, headers);
    const user = await rate(`${base}/user`, {
      ...headers,
      authorization: `Bearer ${session.access_token}`,
    });
    console.log(
      `GET /user: ${user.toFixed(0)} req/s (anchor GET /health: ${health.toFixed(0)} req/s)`,
    );

    const stored = await hash('bench-password', { cost: 10 });
    let t = performance.now();
    for (let i = 0; i < 10; i++) await verify('bench-password', stored);
    const bcryptMs = (performance.now() - t) / 10;
    t = performance.now();
    for (let i = 0; i < 10; i++)
      await post('/token?grant_type=password', { email, password: 'bench-password' });
    const signInMs = (performance.now() - t) / 10;
    console.log(
      `password sign-in: ${signInMs.toFixed(0)} ms each, sequential (anchor bcrypt verify cost 10: ${bcryptMs.toFixed(0)} ms)`,
    );

    let token = session.refresh_token;
    const n = 100;
    t = performance.now();
    for (let i = 0; i < n; i++)
      token = (await post('/token?grant_type=refresh_token', { refresh_token: token }))
        .refresh_token;
    const refreshMs = (performance.now() - t) / n;
    console.log(
      `refresh_token grant: ${refreshMs.toFixed(1)} ms each, ${(1000 / refreshMs).toFixed(0)}/s sequential`,
    );
  } finally {
    await server.stop();
  }
}
