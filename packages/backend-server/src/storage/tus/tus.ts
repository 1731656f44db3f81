import { randomUUID } from 'node:crypto';
import { rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ERRORS, type Locker, Metadata, Server, type Upload } from '@tus/server';
import type { GatewayInfo } from '../../http/gateway';
import { authenticate, type Caller, serviceCaller } from '../auth';
import { S3Backend } from '../backends/s3';
import type { StorageContext } from '../context';
import { ERR, StorageError, toStorageError } from '../errors';
import { verifyUpload } from '../http/tokens';
import { cacheControlFrom, checkBucketName, checkKey, checkMime } from '../names';
import { bucketLimits, canWrite, commitObject, sizeLimit } from '../objects';
import { partFinished } from './tus-assembly';
import { type ConcatDeps, createFinal } from './tus-concat';
import { parseUrlId, TUS_PATH, tusError, urlId } from './tus-ids';
import { TusLocker } from './tus-lock';
import { ObjectS3Store } from './tus-s3-store';
import { sweepS3Tus } from './tus-s3-sweep';
import { ObjectFileStore } from './tus-store';
import { sweepTus, TUS_GRACE_MS } from './tus-sweep';

export { parseUrlId, TUS_PATH, urlId } from './tus-ids';
export { sweepTus } from './tus-sweep';

/** What the router knows about a tus request, keyed by the Web Request tus handles. */
interface TusRequestInfo {
  gateway: GatewayInfo;
  path: string;
  signed: boolean;
  caller?: Caller;
}

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
        async lock(signal, requestRelease) {
          // A cut connection is seen a turn of the event loop after its request began (on a
          // busy machine, later than the request's lock would be taken): look once more.
          await new Promise((resolve) => setImmediate(resolve));
          if (req.signal.aborted) throw ERRORS.ABORTED;
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
  /** Runs the collector once (tus-sweep.ts): the number of uploads and files removed. */
  sweep(): Promise<number>;
  close(): Promise<void>;
}

function target(metadata: Record<string, string | null> | undefined) {
  const bucket = metadata?.bucketName;
  const name = metadata?.objectName;
  if (!bucket || !name) throw tusError(400, 'Metadata header is required');
  return { bucket: checkBucketName(bucket), name: checkKey(name) };
}

/**
 * Creates the tus service. Uploads live in `disk.tus` (shared by the replicas on one
 * database), expire after `expiryMs`; their locks are shared through the database.
 */
export async function createTus(s: StorageContext, expiryMs: number): Promise<TusService> {
  const requests = new WeakMap<Request, TusRequestInfo>();
  // On the S3 backend uploads live in the bucket (tus-s3-store.ts), else in the directory.
  const datastore =
    s.objects instanceof S3Backend
      ? new ObjectS3Store(s.objects, expiryMs, s.globalLimit)
      : new ObjectFileStore(s.disk.tus, expiryMs);
  const kv = datastore.configstore;
  const locker = await TusLocker.open(s.db);

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

  /**
   * Checks that the caller may create the object an upload is for (the bucket, its MIME
   * types, the user metadata, the storage policies); the upsert flag and the size limit.
   */
  const authorize = async (
    req: Request,
    metadata: Record<string, string | null> | undefined,
    size?: number,
  ) => {
    const { bucket, name } = target(metadata);
    const { caller, upsert } = await callerFor(req, bucket, name);
    const limits = await bucketLimits(s.db, bucket);
    const limit = sizeLimit(limits, s.globalLimit);
    if (size !== undefined && size > limit) throw tusError(413, 'Maximum size exceeded');
    checkMime(metadata?.contentType ?? 'application/octet-stream', limits.allowedMimeTypes);
    if (metadata?.metadata) parseUserMetadata(metadata.metadata);
    await canWrite(s.db, caller, bucket, name, upsert ? 'upsert' : 'insert');
    return { upsert, limit };
  };

  /**
   * Makes the finished bytes in `file` (null: already at the version's key, as on the S3
   * backend) the object of `metadata`; removes them on failure.
   */
  const commit = async (
    req: Request,
    file: string | null,
    version: string,
    size: number,
    metadata: Record<string, string | null> | undefined,
    upsert: boolean,
  ) => {
    const { bucket, name } = target(metadata);
    const caller = infoOf(req).caller ?? (await callerFor(req, bucket, name)).caller;
    try {
      if (file !== null) {
        await s.disk.syncFile(file);
        await s.objects.adoptFile(file, version);
      }
      await commitObject(
        s.db,
        s.objects,
        caller,
        {
          bucket,
          name,
          version,
          size,
          md5: version.replace(/-/g, ''),
          mimetype: metadata?.contentType || 'application/octet-stream',
          cacheControl: cacheControlFrom(metadata?.cacheControl),
          userMetadata: metadata?.metadata ? parseUserMetadata(metadata.metadata) : null,
        },
        upsert ? 'upsert' : 'insert',
      );
    } catch (error) {
      if (file !== null) await rm(file, { force: true });
      else await s.objects.remove(version).catch(() => {});
      throw error;
    }
  };

  const joining = { s, datastore, locker, target, authorize, commit };

  const options = (signed: boolean) => ({
    path: `${TUS_PATH}${signed ? '/sign' : ''}`,
    datastore,
    locker: (req: Request) => lockerFor(locker, req),
    respectForwardedHeaders: true,
    // Finished uploads are refused by the store (ObjectFileStore.remove), parts are not.
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
      const record = await datastore.record(id);
      // A known length was checked against the bucket at creation; only a deferred one is left.
      if (record?.size !== undefined) return s.globalLimit;
      return limitFor(record?.metadata);
    },
    onUploadCreate: async (req: Request, upload: Upload) => {
      const { upsert } = await authorize(req, upload.metadata, upload.size);
      // Kept with tus's record of the upload: x-upsert matters on the POST only.
      Object.assign(upload, {
        storage_upsert: upsert,
        ...(req.headers.get('upload-concat') === 'partial' ? { storage_partial: true } : {}),
      });
      return { metadata: upload.metadata };
    },
    onIncomingRequest: async (req: Request, id: string) => {
      if (req.method === 'POST' || req.method === 'HEAD' || req.method === 'OPTIONS') return;
      const record = await datastore.record(id);
      if (req.method === 'PATCH' && (record?.storage_concat || record?.storage_parts)) {
        throw tusError(403, 'A final upload cannot be modified');
      }
      // No record: tus answers 404. Done: it answers as complete, changing nothing.
      if (!record || record.storage_done) return;
      const { bucket, name } = target(record.metadata);
      const fromUrl = parseUrlId(new URL(req.url).pathname.split('/').pop() ?? '');
      if (!fromUrl || fromUrl.bucket !== bucket || fromUrl.name !== name) {
        throw tusError(404, 'The file for this url was not found');
      }
      const { caller } = await callerFor(req, bucket, name);
      await canWrite(s.db, caller, bucket, name, record.storage_upsert ? 'upsert' : 'insert');
    },
    onUploadFinish: async (req: Request, upload: Upload) => {
      const record = (await datastore.record(upload.id)) ?? {};
      // Asked again (another replica committed it meanwhile): complete already.
      if (record.storage_done) return { headers: { 'Tus-Complete': '1' } };
      // A part waits, complete, for the final upload that joins it (tus-concat.ts); a part
      // placed in its final upload's file may be the last one it waited for.
      if (record.storage_partial) {
        if (record.storage_into) await partFinished(joining, req, record.storage_into);
        return {};
      }
      const file = datastore instanceof ObjectFileStore ? join(s.disk.tus, upload.id) : null;
      const size = upload.size ?? (file ? (await stat(file)).size : 0);
      try {
        const metadata = record.metadata ?? upload.metadata;
        await commit(req, file, upload.id, size, metadata, record.storage_upsert === true);
      } catch (error) {
        await kv.delete(upload.id).catch(() => {});
        throw error;
      }
      await datastore.markDone(upload.id, { size });
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
  for (const server of [unsigned, signed]) {
    const deps: ConcatDeps = {
      ...joining,
      url: (req, version) => server.handlers.POST.generateUrl(req as never, version),
    };
    // Final uploads are ours (tus-concat.ts); partial ones are created as any upload.
    const post = server.handlers.POST;
    const create = post.send.bind(post);
    post.send = (req, context, headers) =>
      req.headers.get('upload-concat')?.startsWith('final;')
        ? (createFinal(deps, req as unknown as Request, headers ?? new Headers()) as never)
        : create(req, context, headers);
    // HEAD says which kind of upload it is, as the extension asks.
    const head = server.handlers.HEAD;
    const offset = head.send.bind(head);
    head.send = async (req, context, headers) => {
      const res = await offset(req, context, headers);
      const id = parseUrlId(new URL(req.url).pathname.split('/').pop() ?? '')?.version;
      if (!id || res.status !== 200) return res;
      const record = await datastore.record(id);
      const concat = record?.storage_partial ? 'partial' : record?.storage_concat;
      if (concat) res.headers.set('Upload-Concat', concat);
      // A final upload still waiting for its parts has no offset to tell.
      if (record?.storage_parts) res.headers.delete('Upload-Offset');
      return res;
    };
  }
  const sweepOptions = { tryLock: (id: string) => locker.tryLock(id), graceMs: TUS_GRACE_MS };
  const sweep = () =>
    datastore instanceof ObjectS3Store
      ? sweepS3Tus(datastore, sweepOptions)
      : sweepTus(s.disk.tus, expiryMs, sweepOptions);
  let sweeping: Promise<unknown> = Promise.resolve();
  const timer = setInterval(
    () => {
      sweeping = sweep().catch(() => {});
    },
    60 * 60 * 1000,
  );
  timer.unref();

  return {
    async handle(req, info) {
      requests.set(req, info);
      return (info.signed ? signed : unsigned).handleWeb(req);
    },
    sweep,
    async close() {
      clearInterval(timer);
      await sweeping;
      await locker.close();
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
