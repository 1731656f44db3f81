import { useBackendMutation, useBackendQuery } from '@app/backend-react';
import { type ChangeEvent, useState } from 'react';
import { ErrorText } from '../components/ErrorText';
import { useConsole } from '../lib/context';
import { bytes, when } from '../lib/format';
import { Link } from '../lib/router';

interface Upload {
  name: string;
  done: number;
  total: number;
  state: 'uploading' | 'done' | 'failed';
  error?: string;
}

/** One folder of a bucket: sub-folders, objects (download, delete, signed URL), uploads. */
export function Browser({ bucket, prefix }: { bucket: string; prefix: string }) {
  const { client } = useConsole();
  const files = client.storage.from(bucket);
  const key = ['objects', bucket, prefix];
  const list = useBackendQuery(key, () => files.list(prefix, { limit: 1000 }));
  const [uploads, setUploads] = useState<Upload[]>([]);
  const [signed, setSigned] = useState<{ name: string; url: string } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const remove = useBackendMutation((name: string) => files.remove([`${prefix}${name}`]), {
    invalidates: [key],
  });

  const upload = (event: ChangeEvent<HTMLInputElement>) => {
    for (const file of Array.from(event.target.files ?? [])) {
      const entry: Upload = { name: file.name, done: 0, total: file.size, state: 'uploading' };
      setUploads((u) => [...u, entry]);
      const set = (patch: Partial<Upload>) =>
        setUploads((u) => u.map((x) => (x.name === file.name ? { ...x, ...patch } : x)));
      const job = files.uploadResumable(`${prefix}${file.name}`, file, {
        contentType: file.type || 'application/octet-stream',
        upsert: true,
        onProgress: (p) => set({ done: p.bytes, total: p.total ?? file.size }),
      });
      void job.result.then(({ error: failed }) => {
        set(
          failed ? { state: 'failed', error: failed.message } : { state: 'done', done: file.size },
        );
        void list.refetch();
      });
    }
    event.target.value = '';
  };
  const download = async (name: string) => {
    const { data, error: failed } = await files.download(`${prefix}${name}`);
    if (failed || !data) {
      setError(failed);
      return;
    }
    const url = URL.createObjectURL(data);
    const a = document.createElement('a');
    a.href = url;
    a.download = name;
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  };
  const sign = async (name: string) => {
    const { data, error: failed } = await files.createSignedUrl(`${prefix}${name}`, 3600);
    if (failed || !data) setError(failed);
    else setSigned({ name, url: data.signedUrl });
  };

  const parts = prefix.split('/').filter(Boolean);
  const entries = list.data ?? [];
  return (
    <section aria-label="Objects">
      <nav aria-label="Folder" className="crumbs">
        <Link to={`storage/${bucket}`}>{bucket}</Link>
        {parts.map((p, i) => (
          <span key={parts.slice(0, i + 1).join('/')}>
            {' / '}
            <Link to={`storage/${bucket}/${parts.slice(0, i + 1).join('/')}`}>{p}</Link>
          </span>
        ))}
      </nav>
      <div className="toolbar">
        <label htmlFor="upload-input" className="button primary">
          Upload files
        </label>
        <input
          id="upload-input"
          type="file"
          multiple
          onChange={upload}
          className="visually-hidden"
        />
      </div>
      {uploads.length > 0 && (
        <ul className="plain uploads" aria-label="Uploads">
          {uploads.map((u) => (
            <li key={u.name}>
              {u.name}{' '}
              <progress max={u.total || 1} value={u.done} aria-label={`Upload of ${u.name}`} />{' '}
              <span>
                {u.state === 'uploading'
                  ? `${Math.round((u.done / (u.total || 1)) * 100)}%`
                  : u.state === 'done'
                    ? 'done'
                    : `failed: ${u.error}`}
              </span>
            </li>
          ))}
        </ul>
      )}
      <ErrorText error={list.error ?? remove.error ?? error} />
      {signed && (
        <p role="status" className="signed">
          Signed URL of {signed.name} (1 hour):{' '}
          <a href={signed.url} target="_blank" rel="noreferrer noopener">
            {signed.url}
          </a>
        </p>
      )}
      <table className="grid">
        <caption className="visually-hidden">Objects in {prefix || 'the bucket root'}</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Size</th>
            <th scope="col">Type</th>
            <th scope="col">Updated</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {entries.map((o) =>
            o.id === null ? (
              <tr key={`folder:${o.name}`}>
                <td colSpan={5}>
                  <Link to={`storage/${bucket}/${prefix}${o.name}`}>{o.name}/</Link>
                </td>
              </tr>
            ) : (
              <tr key={o.name}>
                <td>{o.name}</td>
                <td>{bytes(Number(o.metadata?.size ?? 0))}</td>
                <td>{String(o.metadata?.mimetype ?? '')}</td>
                <td>{when(o.updated_at)}</td>
                <td className="nowrap">
                  <button type="button" onClick={() => download(o.name)}>
                    Download<span className="visually-hidden"> {o.name}</span>
                  </button>{' '}
                  <button type="button" onClick={() => sign(o.name)}>
                    Signed URL<span className="visually-hidden"> for {o.name}</span>
                  </button>{' '}
                  <button
                    type="button"
                    onClick={() => {
                      if (confirm(`Delete ${o.name}?`)) remove.mutate(o.name);
                    }}
                  >
                    Delete<span className="visually-hidden"> {o.name}</span>
                  </button>
                </td>
              </tr>
            ),
          )}
          {list.data && entries.length === 0 && (
            <tr>
              <td colSpan={5} className="muted">
                This folder is empty.
              </td>
            </tr>
          )}
        </tbody>
      </table>
    </section>
  );
}
