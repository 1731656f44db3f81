import { useBackendMutation, useBackendQuery } from '@app/backend-react';
import type { Bucket } from '@app/backend-sdk';
import { type FormEvent, useState } from 'react';
import { ErrorText } from '../components/ErrorText';
import { useConsole } from '../lib/context';
import { bytes } from '../lib/format';
import { Link } from '../lib/router';
import { Browser } from './StorageBrowser';

/** Buckets (create, public or private, limits) and, for one bucket, its objects as folders. */
export default function Storage({ path }: { path: string }) {
  const { client } = useConsole();
  const [bucketId, ...rest] = path.split('/').filter(Boolean);
  const buckets = useBackendQuery(['buckets'], () => client.storage.listBuckets());
  const bucket = buckets.data?.find((b) => b.id === bucketId);
  return (
    <div className="split">
      <section aria-labelledby="storage-heading" className="list-pane">
        <h1 id="storage-heading">Storage</h1>
        <ErrorText error={buckets.error} />
        <ul className="plain" aria-label="Buckets">
          {buckets.data?.map((b) => (
            <li key={b.id}>
              <Link to={`storage/${b.id}`} aria-current={b.id === bucketId ? 'page' : undefined}>
                {b.name}
              </Link>{' '}
              <span className="muted">{b.public ? 'public' : 'private'}</span>
            </li>
          ))}
          {buckets.data?.length === 0 && <li className="muted">No buckets yet.</li>}
        </ul>
        <NewBucket />
      </section>
      <section className="detail-pane" aria-label="Bucket">
        {bucket ? (
          <>
            <BucketSettings key={bucket.id} bucket={bucket} />
            <Browser bucket={bucket.id} prefix={rest.length ? `${rest.join('/')}/` : ''} />
          </>
        ) : (
          <p className="muted">{bucketId ? `No bucket "${bucketId}".` : 'Choose a bucket.'}</p>
        )}
      </section>
    </div>
  );
}

/** Bytes from a size such as `5MB`, or a number of bytes; null for empty. */
function sizeOf(text: string): number | string | null {
  const t = text.trim();
  if (t === '') return null;
  return /^\d+$/.test(t) ? Number(t) : t;
}

function NewBucket() {
  const { client } = useConsole();
  const [name, setName] = useState('');
  const [isPublic, setPublic] = useState(false);
  const [limit, setLimit] = useState('');
  const [types, setTypes] = useState('');
  const create = useBackendMutation(
    () =>
      client.storage.createBucket(name, {
        public: isPublic,
        fileSizeLimit: sizeOf(limit),
        allowedMimeTypes: types.trim() ? types.split(',').map((t) => t.trim()) : null,
      }),
    { invalidates: [['buckets']], onSuccess: () => setName('') },
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(undefined);
  };
  return (
    <form onSubmit={submit} className="card" aria-labelledby="new-bucket-heading">
      <h2 id="new-bucket-heading">New bucket</h2>
      <label htmlFor="bucket-name">Name</label>
      <input id="bucket-name" required value={name} onChange={(e) => setName(e.target.value)} />
      <label className="inline">
        <input type="checkbox" checked={isPublic} onChange={(e) => setPublic(e.target.checked)} />
        Public (anyone can read objects by URL)
      </label>
      <label htmlFor="bucket-limit">File size limit (bytes, or e.g. 10MB)</label>
      <input id="bucket-limit" value={limit} onChange={(e) => setLimit(e.target.value)} />
      <label htmlFor="bucket-types">Allowed MIME types (comma separated)</label>
      <input
        id="bucket-types"
        value={types}
        placeholder="image/*, application/pdf"
        onChange={(e) => setTypes(e.target.value)}
      />
      <button type="submit" className="primary" disabled={create.isPending}>
        Create bucket
      </button>
      <ErrorText error={create.error} />
    </form>
  );
}

function BucketSettings({ bucket }: { bucket: Bucket }) {
  const { client } = useConsole();
  const [limit, setLimit] = useState(bucket.file_size_limit ? String(bucket.file_size_limit) : '');
  const update = useBackendMutation(
    (options: { public: boolean; fileSizeLimit: number | string | null }) =>
      client.storage.updateBucket(bucket.id, {
        ...options,
        allowedMimeTypes: bucket.allowed_mime_types,
      }),
    { invalidates: [['buckets']] },
  );
  return (
    <div className="card">
      <h2>{bucket.name}</h2>
      <p>
        {bucket.public ? 'Public' : 'Private'} · limit {bytes(bucket.file_size_limit)} · types{' '}
        {bucket.allowed_mime_types?.join(', ') || 'any'}
      </p>
      <form
        className="toolbar"
        onSubmit={(e) => {
          e.preventDefault();
          update.mutate({ public: bucket.public, fileSizeLimit: sizeOf(limit) });
        }}
      >
        <button
          type="button"
          onClick={() =>
            update.mutate({ public: !bucket.public, fileSizeLimit: bucket.file_size_limit })
          }
        >
          Make {bucket.public ? 'private' : 'public'}
        </button>
        <label htmlFor="edit-limit">Size limit</label>
        <input id="edit-limit" value={limit} onChange={(e) => setLimit(e.target.value)} />
        <button type="submit">Save limit</button>
      </form>
      <ErrorText error={update.error} />
    </div>
  );
}
