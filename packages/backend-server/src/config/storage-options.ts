/**
 * The storage options of `startServer` (`storage`): limits, buckets made at start, the
 * object backend (disk or S3), the S3 protocol and image transformations. Re-exported by
 * options.ts with the other options.
 */
/** Storage settings. */
export interface StorageOptions {
  /** Server-wide upload limit in bytes (buckets may set lower ones). Default 50 GiB. */
  fileSizeLimit?: number;
  /** Seconds an unfinished resumable upload is kept (`Upload-Expires`). Default 24 h. */
  uploadExpiry?: number;
  /**
   * Where storage keeps its files (object bytes, resumable uploads). Default
   * `<dataDir>/storage`, or a temporary directory without a data directory. Replicas on one
   * PostgreSQL share one (a shared volume), as they share the database.
   *
   * @example
   * startServer({ databaseUrl, storage: { directory: '/mnt/shared/storage' } });
   */
  directory?: string;
  /** Seconds a signed upload URL is valid. Default 60, as the hosted service. */
  signedUploadExpiry?: number;
  /**
   * Where object bytes live, as the hosted service's `STORAGE_BACKEND`: `'file'` (the
   * storage directory, the default) or `'s3'` (an S3-compatible bucket, see {@link
   * StorageOptions.s3}). Metadata stays in the database either way; resumable uploads are
   * received in the storage directory and moved to the bucket when complete.
   *
   * @example
   * startServer({ databaseUrl, storage: { backend: 's3', s3: {
   *   bucket: 'objects', endpoint: 'http://127.0.0.1:7480', forcePathStyle: true,
   *   accessKeyId: process.env.AWS_ACCESS_KEY_ID, secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY,
   * } } });
   */
  backend?: 'file' | 's3';
  /** The bucket of the `s3` backend (config.toml: `[storage.s3]`). */
  s3?: S3StorageOptions;
  /** Image transformations (`/storage/v1/render/image/…`). */
  imageTransformation?: ImageTransformationOptions;
  /**
   * Buckets made (or updated to the settings given) at every start, after the migrations:
   * the hosted `[storage.buckets.<name>]`. With `objectsPath`, the files under that folder (or
   * that one file) are uploaded into the bucket, keyed by their path relative to it,
   * replacing objects of the same key, as the hosted CLI's `seed buckets`.
   *
   * @example
   * startServer({ storage: { buckets: {
   *   avatars: { public: true, fileSizeLimit: 5 * 1024 ** 2, allowedMimeTypes: ['image/*'] },
   *   docs: { objectsPath: 'backend/seed-files/docs' },
   * } } });
   */
  buckets?: Record<string, BucketOptions>;
  /**
   * The S3 protocol at `/storage/v1/s3` (the hosted `[storage.s3_protocol]`): the AWS SDKs
   * and tools work against the same buckets and objects, signed with these keys (the service
   * role) or with session-token credentials (a user, under RLS). On by default, with fixed
   * local keys: set your own before the server is reachable by others.
   *
   * @example
   * startServer({ storage: { s3Protocol: { region: 'eu-central-1',
   *   accessKeyId: process.env.S3_KEY_ID, secretAccessKey: process.env.S3_SECRET } } });
   */
  s3Protocol?: S3ProtocolOptions;
}

/** Settings of {@link StorageOptions.s3Protocol}. */
export interface S3ProtocolOptions {
  /** Serve the S3 protocol. Default true (the hosted CLI's default). */
  enabled?: boolean;
  /** The region reported to clients (GetBucketLocation, HeadBucket). Default `local`. */
  region?: string;
  /** Access key id of the service-role credentials. Default `backendlocals3key000`. */
  accessKeyId?: string;
  /** Its secret. Default `backend-local-s3-secret-0000000000000000`. */
  secretAccessKey?: string;
}

/**
 * One bucket of {@link StorageOptions.buckets}. A setting left out is, as with the hosted
 * CLI, the default for a new bucket and unchanged on an existing one.
 */
export interface BucketOptions {
  /** Objects readable without a token. Default false. */
  public?: boolean;
  /** Upload limit of the bucket in bytes. Default none (the server-wide limit). */
  fileSizeLimit?: number | null;
  /** MIME types the bucket accepts (`image/png`, `image/*`). Default any. */
  allowedMimeTypes?: string[] | null;
  /** A folder (or one file) whose files are uploaded into the bucket at start. */
  objectsPath?: string;
}

/**
 * The S3-compatible bucket of `storage.backend: 's3'`, with the hosted storage service's
 * settings (its environment variable in brackets). Objects are kept as
 * `objects/<version uuid>` in the bucket, which must exist.
 *
 * @example
 * { bucket: 'objects', endpoint: 'http://127.0.0.1:7480', region: 'us-east-1', forcePathStyle: true }
 */
export interface S3StorageOptions {
  /** The bucket (`STORAGE_S3_BUCKET`). */
  bucket: string;
  /** The service's URL (`STORAGE_S3_ENDPOINT`). Default AWS's endpoint for the region. */
  endpoint?: string;
  /** The region (`STORAGE_S3_REGION`). Default `us-east-1`. */
  region?: string;
  /** Bucket in the path rather than the host name (`STORAGE_S3_FORCE_PATH_STYLE`). Default false. */
  forcePathStyle?: boolean;
  /** Access key (`AWS_ACCESS_KEY_ID`). Default the AWS SDK's credential chain. */
  accessKeyId?: string;
  /** Secret key (`AWS_SECRET_ACCESS_KEY`). */
  secretAccessKey?: string;
}

/** Limits of image transformations; the defaults are the hosted service's. */
export interface ImageTransformationOptions {
  /** Serve `/render/image` and sign render URLs. Default true. */
  enabled?: boolean;
  /** Largest source image in bytes. Default 25 MB (25,000,000). */
  maxSourceBytes?: number;
  /** Largest source image in pixels. Default 50 megapixels (50,000,000). */
  maxSourcePixels?: number;
  /** Largest output width or height; larger requests are clamped. Default 2500. */
  maxDimension?: number;
  /** Seconds one render may take (past it: 400, "Image request timed out"). Default 30. */
  timeoutSeconds?: number;
  /** Disk space for rendered variants (`<storage dir>/render`), oldest dropped first. Default 1 GiB. */
  cacheBytes?: number;
}
