import { useBackendMutation, useBackendQuery } from '@app/backend-react';
import type { NewS3AccessKey, S3AccessKey } from '@app/backend-server/console-api';
import { type FormEvent, useState } from 'react';
import { ErrorText } from '../components/ErrorText';
import { useConsole } from '../lib/context';

/**
 * The project's S3 access keys (the hosted Storage → S3 access keys): list, create with a
 * description (the secret is shown once, with a copy button), delete after a confirmation.
 */
export default function S3Keys() {
  const { api, session } = useConsole();
  const keys = useBackendQuery(['s3-keys'], () => api.get<S3AccessKey[]>('/s3-keys'));
  const [made, setMade] = useState<NewS3AccessKey | null>(null);
  const remove = useBackendMutation((id: string) => api.delete(`/s3-keys/${id}`), {
    invalidates: [['s3-keys']],
  });
  const s3 = (session.settings.storage.s3Protocol ?? {}) as {
    region?: string;
    accessKeyId?: string;
  };
  return (
    <section aria-labelledby="s3-keys-heading">
      <h1 id="s3-keys-heading">S3 access keys</h1>
      <p className="muted">
        Keys that sign requests to the S3 endpoint <code>{session.url}/storage/v1/s3</code> (region{' '}
        <code>{s3.region}</code>) as the service role: they bypass RLS, keep them on servers. The
        configured key <code>{s3.accessKeyId}</code> is always valid too.
      </p>
      {made && <NewSecret made={made} onDone={() => setMade(null)} />}
      <ErrorText error={keys.error ?? remove.error} />
      <table aria-label="S3 access keys">
        <thead>
          <tr>
            <th scope="col">Access key id</th>
            <th scope="col">Description</th>
            <th scope="col">Created</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {keys.data?.map((k) => (
            <tr key={k.id}>
              <td>
                <code>{k.id}</code>
              </td>
              <td>{k.description}</td>
              <td>{new Date(k.created_at).toLocaleString()}</td>
              <td>
                <button
                  type="button"
                  aria-label={`Delete the key ${k.id}`}
                  disabled={remove.isPending}
                  onClick={() => {
                    if (confirm(`Delete the S3 access key ${k.id}? Requests signed with it fail.`))
                      remove.mutate(k.id);
                  }}
                >
                  Delete
                </button>
              </td>
            </tr>
          ))}
          {keys.data?.length === 0 && (
            <tr>
              <td colSpan={4} className="muted">
                No access keys yet.
              </td>
            </tr>
          )}
        </tbody>
      </table>
      <NewKey onMade={setMade} />
    </section>
  );
}

function NewSecret({ made, onDone }: { made: NewS3AccessKey; onDone(): void }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="card" role="status" aria-label="New access key">
      <h2>Your new key</h2>
      <p>Copy the secret now: it is shown this once.</p>
      <label htmlFor="new-s3-key-id">Access key id</label>
      <input id="new-s3-key-id" readOnly value={made.id} />
      <label htmlFor="new-s3-key-secret">Secret access key</label>
      <input id="new-s3-key-secret" readOnly value={made.secret} />
      <button
        type="button"
        onClick={() =>
          void navigator.clipboard.writeText(made.secret).then(
            () => setCopied(true),
            () => setCopied(false),
          )
        }
      >
        {copied ? 'Copied' : 'Copy secret'}
      </button>{' '}
      <button type="button" onClick={onDone}>
        Done
      </button>
    </div>
  );
}

function NewKey({ onMade }: { onMade(key: NewS3AccessKey): void }) {
  const { api } = useConsole();
  const [description, setDescription] = useState('');
  const create = useBackendMutation(
    (text: string) => api.post<NewS3AccessKey>('/s3-keys', { description: text }),
    {
      invalidates: [['s3-keys']],
      onSuccess: (key) => {
        setDescription('');
        onMade(key);
      },
    },
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(description);
  };
  return (
    <form onSubmit={submit} className="card" aria-labelledby="new-s3-key-heading">
      <h2 id="new-s3-key-heading">New access key</h2>
      <label htmlFor="s3-key-description">Description</label>
      <input
        id="s3-key-description"
        maxLength={200}
        value={description}
        onChange={(e) => setDescription(e.target.value)}
      />
      <button type="submit" className="primary" disabled={create.isPending}>
        Create key
      </button>
      <ErrorText error={create.error} />
    </form>
  );
}
