/** The bucket API of storage. */
import type { Http } from '../http/index';
import { type StorageResult, storageJson } from './request';

/** A bucket as storage returns it. */
export interface Bucket {
  id: string;
  name: string;
  owner: string;
  public: boolean;
  file_size_limit: number | null;
  allowed_mime_types: string[] | null;
  created_at: string;
  updated_at: string;
  type?: string;
}

/** Settings of a bucket. */
export interface BucketOptions {
  public?: boolean;
  /** Bytes, or a string such as `"10MB"`. */
  fileSizeLimit?: number | string | null;
  /** Accepted MIME types, wildcards allowed (`image/*`). */
  allowedMimeTypes?: string[] | null;
}

const settings = (o: BucketOptions) => ({
  public: o.public,
  file_size_limit: o.fileSizeLimit,
  allowed_mime_types: o.allowedMimeTypes,
});

/** Bucket calls, mixed into the storage client. */
export class BucketApi {
  declare protected readonly http: Http;
  constructor(http: Http) {
    this.http = http;
  }

  /** Lists the buckets the caller may see. */
  listBuckets(
    options: {
      limit?: number;
      offset?: number;
      sortColumn?: 'id' | 'name' | 'created_at' | 'updated_at';
      sortOrder?: 'asc' | 'desc';
      search?: string;
    } = {},
  ): Promise<StorageResult<Bucket[]>> {
    const query = new URLSearchParams(
      Object.entries(options).map(([k, v]) => [k, String(v)]),
    ).toString();
    return storageJson(this.http, { path: '/bucket', query });
  }

  /** One bucket. */
  getBucket(id: string): Promise<StorageResult<Bucket>> {
    return storageJson(this.http, { path: `/bucket/${encodeURIComponent(id)}` });
  }

  /**
   * Creates a bucket.
   *
   * @example
   * await client.storage.createBucket('avatars', { public: true, fileSizeLimit: '1MB' });
   */
  createBucket(id: string, options: BucketOptions = {}): Promise<StorageResult<{ name: string }>> {
    return storageJson(this.http, {
      method: 'POST',
      path: '/bucket',
      json: { id, name: id, ...settings({ public: false, ...options }) },
    });
  }

  /** Changes a bucket's settings. */
  updateBucket(id: string, options: BucketOptions): Promise<StorageResult<{ message: string }>> {
    return storageJson(this.http, {
      method: 'PUT',
      path: `/bucket/${encodeURIComponent(id)}`,
      json: { id, name: id, ...settings(options) },
    });
  }

  /** Removes every object of a bucket. */
  emptyBucket(id: string): Promise<StorageResult<{ message: string }>> {
    return storageJson(this.http, {
      method: 'POST',
      path: `/bucket/${encodeURIComponent(id)}/empty`,
      json: {},
    });
  }

  /** Deletes an empty bucket. */
  deleteBucket(id: string): Promise<StorageResult<{ message: string }>> {
    return storageJson(this.http, {
      method: 'DELETE',
      path: `/bucket/${encodeURIComponent(id)}`,
      json: {},
    });
  }
}
