import { randomUUID } from 'node:crypto';
import { rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ERRORS, type Locker, MemoryLocker, Metadata, Server, Upload } from '@tus/server';
import type { GatewayInfo } from '../http/gateway';
import { authenticate, type Caller, serviceCaller } from './auth';
import type { StorageContext } from './context';
import { ERR, StorageError, toStorageError } from './errors';
import { cacheControlFrom, checkBucketName, checkKey, checkMime } from './names';
import { bucketLimits, canWrite, commitObject, sizeLimit } from './objects';
import { verifyUpload } from './tokens';
import { ObjectFileStore, type UploadRecord, UUID } from './tus-store';

export { sweepTus } from './tus-store';

/** The public path of the tus endpoint. */
export const TUS_PATH = '/storage/v1/upload/resumable';

/** What the router knows about a tus request, keyed by the Web Request tus handles. */
interface TusRequestInfo {
  gateway: GatewayInfo;
  path: string;
  signed: boolean;
  caller?: Caller;
}

/** A tus error answer: plain text with the logical status. */
const tusError = (status: number, body: string) => ({ status_code: status, body: `${body}\n` });

/**
 * tus's locks, taken for one request. A request whose client has gone neither takes an
 * upload's lock nor keeps waiting for it: taking the lock makes its holder stop early, and
 * after a cut connection the holder is most likely the client's own retry of the request
 * that was cut.
 */
function lockerFor(locker: Locker, req: Request): Locker {
  return {
    newLock(id) {
      const lock = locker.newLock(id);
      return {
        lock(signal, requestRelease) {
          if (req.signal.aborted) return Promise.reject(ERRORS.ABORTED);
          return lock.lock(AbortSignal.any([signal, req.signal]), requestRelease);
        },
        unlock: () => lock.unlock(),
      };
    },
  };
}

/** The tus endpoint of storage: the unsigned and the `/sign` variants over one store. */
export interface TusService {
  handle(req: Request, info: TusRequestInfo): Promise<Response>;
  close(): void;
}

function target(metadata: Record<string, string | null> | undefined) {
  const bucket = metadata?.bucketName;
  const name = metadata?.objectName;
  if (!bucket || !name) throw tusError(400, 'Metadata header is required');
  return { bucket: checkBucketName(bucket), name: checkKey(name) };
}

/** base64url(`bucket/name/version`): the id in upload URLs. */
export const urlId = (bucket: string, name: string, version: string) =>
  Buffer.from(`${bucket}/${name}/${version}`).toString('base64url');

/** Parses a URL id back: its bucket, name and version, or null. */
export function parseUrlId(id: string): { bucket: string; name: string; version: string } | null {
  if (!/^[A-Za-z0-9_-]+$/.test(id)) return null;
  const text = Buffer.from(id, 'base64url').toString('utf8');
  const last = text.lastIndexOf('/');
  const first = text.indexOf('/');
  if (first < 0 || last <= first) return null;
  const version = text.slice(last + 1);
  if (!UUID.test(version)) return null;
  return { bucket: text.slice(0, first), name: text.slice(first + 1, last), version };
}

/** Creates the tus service. Uploads live in `disk.tus`, expire after `expiryMs`. */
export function createTus(s: StorageContext, expiryMs: number): TusService {
  const requests = new WeakMap<Request, TusRequestInfo>();
  const datastore = new ObjectFileStore(s.disk.tus, expiryMs);
  const kv = datastore.configstore;
  const locker = new MemoryLocker();

  const infoOf = (req: Request): TusRequestInfo => {
    const info = requests.get(req);
    if (!info) throw ERR.internal();
    return info;
  };

  /** The caller of a request: the x-signature token on /sign, else the JWT. */
  const callerFor = async (req: Request, bucket: string, name: string) => {
    const info = infoOf(req);
    if (info.signed) {
      const token = req.headers.get('x-signature');
      if (!token) throw tusError(403, 'Missing x-signature header');
      const claims = await verifyUpload(token, s.secret, `${bucket}/${name}`);
      info.caller = serviceCaller(req, info.path, claims.owner);
      return { caller: info.caller, upsert: claims.upsert };
    }
    info.caller = await authenticate(req, info.path, info.gateway, s.keys);
    return { caller: info.caller, upsert: req.headers.get('x-upsert') === 'true' };
  };

  const limitFor = async (metadata: Record<string, string | null> | undefined) => {
    try {
      const bucket = metadata?.bucketName;
      if (!bucket) return s.globalLimit;
      return sizeLimit(await bucketLimits(s.db, bucket), s.globalLimit);
    } catch {
      return s.globalLimit;
    }
  };

  const options = (signed: boolean) => ({
    path: `${TUS_PATH}${signed ? '/sign' : ''}`,
    datastore,
    locker: (req: Request) => lockerFor(locker, req),
    respectForwardedHeaders: true,
    disableTerminationForFinishedUploads: true,
    namingFunction: () => randomUUID(),
    generateUrl: (req: Request, o: { proto: string; host: string; path: string; id: string }) => {
      const metadata = Metadata.parse(req.headers.get('upload-metadata') ?? undefined);
      const { bucket, name } = target(metadata);
      return `${o.proto}://${o.host}${o.path}/${urlId(bucket, name, o.id)}`;
    },
    getFileIdFromRequest: (_req: Request, last?: string) => {
      const parsed = last ? parseUrlId(last) : null;
      return parsed?.version;
    },
    maxSize: async (req: Request, id: string | null) => {
      if (req.method === 'POST') {
        try {
          return await limitFor(Metadata.parse(req.headers.get('upload-metadata') ?? undefined));
        } catch {
          return s.globalLimit;
        }
      }
      if (!id) return s.globalLimit;
      const record = (await kv.get(id)) as UploadRecord | undefined;
      // A known length was checked against the bucket at creation; only a deferred one is left.
      if (record?.size !== undefined) return s.globalLimit;
      return limitFor(record?.metadata);
    },
    onUploadCreate: async (req: Request, upload: Upload) => {
      const { bucket, name } = target(upload.metadata);
      const { caller, upsert } = await callerFor(req, bucket, name);
      const limits = await bucketLimits(s.db, bucket);
      if (upload.size !== undefined && upload.size > sizeLimit(limits, s.globalLimit)) {
        throw tusError(413, 'Maximum size exceeded');
      }
      checkMime(
        upload.metadata?.contentType ?? 'application/octet-stream',
        limits.allowedMimeTypes,
      );
      if (upload.metadata?.metadata) parseUserMetadata(upload.metadata.metadata);
      await canWrite(s.db, caller, bucket, name, upsert ? 'upsert' : 'insert');
      // Kept with tus's record of the upload: x-upsert matters on the POST only.
      Object.assign(upload, { storage_upsert: upsert });
      return { metadata: upload.metadata };
    },
    onIncomingRequest: async (req: Request, id: string) => {
      if (req.method === 'POST' || req.method === 'HEAD' || req.method === 'OPTIONS') return;
      const record = (await kv.get(id)) as UploadRecord | undefined;
      if (!record) return; // tus answers 404
      const { bucket, name } = target(record.metadata);
      const fromUrl = parseUrlId(new URL(req.url).pathname.split('/').pop() ?? '');
      if (!fromUrl || fromUrl.bucket !== bucket || fromUrl.name !== name) {
        throw tusError(404, 'The file for this url was not found');
      }
      const { caller } = await callerFor(req, bucket, name);
      await canWrite(s.db, caller, bucket, name, record.storage_upsert ? 'upsert' : 'insert');
    },
    onUploadFinish: async (req: Request, upload: Upload) => {
      const record = ((await kv.get(upload.id)) ?? {}) as UploadRecord;
      const metadata = record.metadata ?? upload.metadata;
      const { bucket, name } = target(metadata);
      const caller = infoOf(req).caller ?? (await callerFor(req, bucket, name)).caller;
      const file = join(s.disk.tus, upload.id);
      const size = upload.size ?? (await stat(file)).size;
      let committed!: () => void;
      datastore.finishing.set(
        upload.id,
        new Promise<void>((resolve) => {
          committed = resolve;
        }),
      );
      try {
        await s.disk.syncFile(file);
        await s.disk.adopt(file, upload.id);
        await commitObject(
          s.db,
          s.disk,
          caller,
          {
            bucket,
            name,
            version: upload.id,
            size,
            md5: upload.id.replace(/-/g, ''),
            mimetype: metadata?.contentType || 'application/octet-stream',
            cacheControl: cacheControlFrom(metadata?.cacheControl),
            userMetadata: metadata?.metadata ? parseUserMetadata(metadata.metadata) : null,
          },
          record.storage_upsert ? 'upsert' : 'insert',
        );
        datastore.keepFinished(new Upload({ ...upload, size, offset: size }), expiryMs);
      } catch (error) {
        await rm(file, { force: true });
        throw error;
      } finally {
        await kv.delete(upload.id).catch(() => {});
        datastore.finishing.delete(upload.id);
        committed();
      }
      return { headers: { 'Tus-Complete': '1' } };
    },
    onResponseError: (_req: Request, error: Error | { status_code: number; body: string }) => {
      if ('status_code' in error) return undefined;
      const err = toStorageError(error);
      return tusError(err.status, err.message);
    },
  });

  // The hooks get the Web Request; tus's option types speak of its own request type.
  const unsigned = new Server(options(false) as never);
  const signed = new Server(options(true) as never);
  const timer = setInterval(
    () => {
      datastore.deleteExpired().catch(() => {});
    },
    60 * 60 * 1000,
  );
  timer.unref();

  return {
    async handle(req, info) {
      requests.set(req, info);
      return (info.signed ? signed : unsigned).handleWeb(req);
    },
    close() {
      clearInterval(timer);
    },
  };
}

function parseUserMetadata(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    if (value && typeof value === 'object' && !Array.isArray(value))
      return value as Record<string, unknown>;
  } catch {}
  throw new StorageError(
    'InvalidParameter',
    'Bad Request',
    400,
    'Invalid metadata: it must be a JSON object',
  );
}
