/**
 * Integration-test support: a real `@app/backend-server` on a free port, a storage bucket with
 * owner-folder policies, and users with HS256 access tokens signed by the server's secret.
 */
import { createHash, createHmac, randomUUID } from 'node:crypto';
import { type RunningServer, startServer } from '@app/backend-server';
import { createHttp, type Http } from '../../src/http/index';
import { StorageClient } from '../../src/storage/index';

export type { RunningServer };

/** Starts a server for one test file (in-memory PGlite unless `dataDir` is given). */
export const startBackend = (options: Parameters<typeof startServer>[0] = {}) =>
  startServer({ port: 0, ...options });

const b64url = (value: string | Buffer) => Buffer.from(value).toString('base64url');

/** Signs an access token for `sub` with the server's secret, valid for `seconds`. */
export function userToken(server: { jwtSecret: string }, sub: string, seconds = 3600): string {
  const now = Math.floor(Date.now() / 1000);
  const head = b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
  const body = b64url(
    JSON.stringify({
      sub,
      role: 'authenticated',
      aud: 'authenticated',
      email: `${sub}@example.test`,
      session_id: randomUUID(),
      iat: now,
      exp: now + seconds,
    }),
  );
  const sig = createHmac('sha256', server.jwtSecret).update(`${head}.${body}`).digest('base64url');
  return `${head}.${body}.${sig}`;
}

/** A user: id and a token getter that can be swapped (to simulate refreshes). */
export interface TestUser {
  id: string;
  token: string;
}

/** A fresh user id with a token. */
export const newUser = (server: RunningServer, seconds?: number): TestUser => {
  const id = randomUUID();
  return { id, token: userToken(server, id, seconds) };
};

/** The SDK's HTTP layer for a user (token read on every request) and the storage client. */
export function clientFor(
  server: RunningServer,
  user: { token: string } | null,
  options: { fetch?: typeof fetch; url?: string } = {},
): { http: Http; storage: StorageClient } {
  const http = createHttp({
    url: options.url ?? server.url,
    key: server.anonKey,
    accessToken: () => user?.token ?? null,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  return { http, storage: new StorageClient(http) };
}

/**
 * Creates a private bucket where each user owns the folder named after their id
 * (the usual storage policy shape), plus the same for updates, reads and deletes.
 */
export async function ownerBucket(server: RunningServer, id: string, limit?: number) {
  await server.db.query(
    'insert into storage.buckets (id, name, public, file_size_limit) values ($1, $1, false, $2)',
    [id, limit ?? null],
  );
  const rule = `bucket_id = '${id}' and (storage.foldername(name))[1] = (select auth.uid()::text)`;
  for (const op of ['select', 'insert', 'update', 'delete']) {
    const clause = op === 'insert' ? `with check (${rule})` : `using (${rule})`;
    await server.db.exec(
      `create policy "${id}_${op}" on storage.objects for ${op} to authenticated ${clause}`,
    );
  }
}

/** Deterministic pseudo-random bytes (fast, not crypto). */
export function bytes(n: number, seed = 1): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(n);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

export const sha256 = (data: Uint8Array | ArrayBuffer): string =>
  createHash('sha256')
    .update(data instanceof ArrayBuffer ? new Uint8Array(data) : data)
    .digest('hex');

/** The stored object's bytes, read back through the SDK. */
export async function storedSha(storage: StorageClient, bucket: string, path: string) {
  const { data, error } = await storage.from(bucket).download(path);
  if (error) throw error;
  return sha256(await data.arrayBuffer());
}
