import { Hono } from 'hono';
import { fromTrustedProxy, type TrustedProxies, withoutForwarded } from '../../http/client-address';
import type { AppEnv } from '../../service-module';
import type { StorageContext, StorageRequest } from '../context';
import { ERR, errorResponse } from '../errors';
import { renderRoute } from '../render/render';
import type { S3Context } from '../s3/auth';
import { handleS3, S3_PATH } from '../s3/router';
import { TUS_PATH, type TusService } from '../tus/tus';
import {
  createBucket,
  deleteBucket,
  emptyBucket,
  getBucket,
  listBuckets,
  updateBucket,
} from './buckets';
import { downloadAuthenticated, downloadPublic, downloadSigned, objectInfo } from './download';
import { listObjects, listObjectsV2 } from './list';
import {
  copyObject,
  deleteObject,
  deleteObjects,
  moveObject,
  signObject,
  signObjects,
} from './manage';
import { createSignedUpload, uploadObject, uploadToSignedUrl } from './upload';

const BASE = '/storage/v1';
type Handler = () => Promise<Response>;

/** The handler of a bucket route, or null. */
function bucketRoute(
  s: StorageContext,
  r: StorageRequest,
  m: string,
  rest: string[],
): Handler | null {
  const [id, action] = rest;
  if (rest.length === 0) {
    if (m === 'GET') return () => listBuckets(s, r);
    if (m === 'POST') return () => createBucket(s, r);
  } else if (rest.length === 1 && id !== undefined) {
    if (m === 'GET') return () => getBucket(s, r, id);
    if (m === 'PUT') return () => updateBucket(s, r, id);
    if (m === 'DELETE') return () => deleteBucket(s, r, id);
  } else if (rest.length === 2 && id !== undefined && action === 'empty' && m === 'POST') {
    return () => emptyBucket(s, r, id);
  }
  return null;
}

/** The handler of an object route, or null (route order as the hosted service). */
function objectRoute(
  s: StorageContext,
  r: StorageRequest,
  m: string,
  rest: string[],
): Handler | null {
  const [first = '', second = ''] = rest;
  const key = (from: number) => rest.slice(from).join('/');
  const read = m === 'GET' || m === 'HEAD';
  if (m === 'POST' && rest.length === 2 && first === 'list') return () => listObjects(s, r, second);
  if (m === 'POST' && rest.length === 2 && first === 'list-v2')
    return () => listObjectsV2(s, r, second);
  if (m === 'POST' && rest.length === 1 && first === 'move') return () => moveObject(s, r);
  if (m === 'POST' && rest.length === 1 && first === 'copy') return () => copyObject(s, r);
  if (first === 'sign') {
    if (m === 'POST' && rest.length === 2) return () => signObjects(s, r, second);
    if (m === 'POST' && rest.length >= 3) return () => signObject(s, r, second, key(2));
    if (read && rest.length >= 3) return () => downloadSigned(s, r, second, key(2));
  }
  if (first === 'upload' && second === 'sign' && rest.length >= 4) {
    const bucket = rest[2] ?? '';
    if (m === 'POST') return () => createSignedUpload(s, r, bucket, key(3));
    if (m === 'PUT') return () => uploadToSignedUrl(s, r, bucket, key(3));
  }
  if (first === 'info' && m === 'GET') {
    if ((second === 'authenticated' || second === 'public') && rest.length >= 4) {
      return () => objectInfo(s, r, second, rest[2] ?? '', key(3));
    }
    if (rest.length >= 3) return () => objectInfo(s, r, 'any', second, key(2));
  }
  if (first === 'public' && read && rest.length >= 3)
    return () => downloadPublic(s, r, second, key(2));
  if (first === 'authenticated' && read && rest.length >= 3) {
    return () => downloadAuthenticated(s, r, second, key(2));
  }
  if (rest.length === 1 && m === 'DELETE') return () => deleteObjects(s, r, first);
  if (rest.length >= 2) {
    if (m === 'POST' || m === 'PUT') return () => uploadObject(s, r, first, key(1));
    if (read) return () => downloadAuthenticated(s, r, first, key(1));
    if (m === 'DELETE') return () => deleteObject(s, r, first, key(1));
  }
  return null;
}

/** GET/HEAD /render/image/{authenticated|public|sign}/:bucket/:key, or null. */
function renderImageRoute(
  s: StorageContext,
  r: StorageRequest,
  m: string,
  rest: string[],
): Handler | null {
  const [kind, access = '', bucket = ''] = rest;
  const accesses = ['authenticated', 'public', 'sign'];
  if (kind !== 'image' || !accesses.includes(access) || rest.length < 4) return null;
  if (m !== 'GET' && m !== 'HEAD') return null;
  return () => renderRoute(s, r, access, bucket, rest.slice(3).join('/'));
}

/** Reads (and drops) what is left of a request body, so the client sees our answer. */
async function drainBody(req: Request): Promise<void> {
  if (!req.body || req.bodyUsed) return;
  try {
    const reader = req.body.getReader();
    let left = 64 * 1024 * 1024;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      left -= value.byteLength;
      if (left < 0) {
        await reader.cancel();
        return;
      }
    }
  } catch {}
}

/**
 * The storage routes. Paths are matched by hand on the raw, percent-decoded segments, so
 * keys may contain anything the key rules allow (spaces, `?`, `+`, …).
 */
export function storageRoutes(
  s: StorageContext,
  tus: TusService,
  trusted: TrustedProxies,
  s3: S3Context,
): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.all('*', async (c) => {
    const req = c.req.raw;
    const url = new URL(req.url);
    if (url.pathname === S3_PATH || url.pathname.startsWith(`${S3_PATH}/`))
      return handleS3(s3, req);
    const gateway = c.get('gateway');
    const path = url.pathname.slice(BASE.length);
    if (url.pathname === TUS_PATH || url.pathname.startsWith(`${TUS_PATH}/`)) {
      const signed =
        url.pathname === `${TUS_PATH}/sign` || url.pathname.startsWith(`${TUS_PATH}/sign/`);
      // tus builds upload URLs from X-Forwarded-Host/-Proto: only a trusted proxy's count.
      const from = fromTrustedProxy(c, trusted) ? req : withoutForwarded(req);
      return tus.handle(from, { gateway, path, signed });
    }
    const m = req.method;
    try {
      let segments: string[];
      try {
        segments = path
          .split('/')
          .slice(1)
          .map((p) => decodeURIComponent(p));
      } catch {
        throw ERR.invalidKey(path);
      }
      const [top, ...rest] = segments;
      const r: StorageRequest = { req, path, query: url.searchParams, gateway };
      const handler =
        top === 'bucket'
          ? bucketRoute(s, r, m, rest)
          : top === 'object'
            ? objectRoute(s, r, m, rest)
            : top === 'render'
              ? renderImageRoute(s, r, m, rest)
              : null;
      if (!handler) throw ERR.notFoundRoute(m, path);
      return await handler();
    } catch (error) {
      await drainBody(req);
      return errorResponse(error, m);
    }
  });
  return app;
}
