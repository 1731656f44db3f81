import { Agent } from 'node:http';
import { S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { expect } from 'vitest';
import type { RunningServer } from '../../src/server';
import type { TestUser } from './support';

/** An SDK client of the server's S3 endpoint. */
export function s3Client(
  server: RunningServer,
  options: {
    accessKeyId?: string;
    secretAccessKey?: string;
    sessionToken?: string;
    clockOffsetMs?: number;
  } = {},
): S3Client {
  const s3 = server.s3;
  if (!s3) throw new Error('the S3 protocol is off');
  return new S3Client({
    endpoint: s3.url,
    region: s3.region,
    forcePathStyle: true,
    // One attempt, so every answer is seen as sent; no kept-alive sockets, which the server
    // closes after 5 s idle (on a loaded machine a reused one can meet a reset).
    maxAttempts: 1,
    requestHandler: { httpAgent: new Agent({ keepAlive: false }) },
    systemClockOffset: options.clockOffsetMs ?? 0,
    credentials: {
      accessKeyId: options.accessKeyId ?? s3.accessKeyId,
      secretAccessKey: options.secretAccessKey ?? s3.secretAccessKey,
      ...(options.sessionToken ? { sessionToken: options.sessionToken } : {}),
    },
  });
}

/** Session-token credentials of a user: access key id anything, secret the anon key. */
export const userS3 = (server: RunningServer, user: TestUser): S3Client =>
  s3Client(server, {
    accessKeyId: 'local-project',
    secretAccessKey: server.anonKey,
    sessionToken: user.token,
  });

/** Expects `promise` to fail with S3 error `code` and HTTP `status`. */
export async function expectS3Error(
  promise: Promise<unknown>,
  code: string,
  status: number,
): Promise<S3ServiceException> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error, `expected ${code}`).toBeInstanceOf(S3ServiceException);
  const e = error as S3ServiceException;
  expect({ code: e.name, status: e.$metadata.httpStatusCode }).toEqual({ code, status });
  return e;
}

/** `n` deterministic pseudo-random bytes. */
export function bytes(n: number, seed = 1): Buffer {
  const out = Buffer.allocUnsafe(n);
  let x = seed * 2654435761;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}
