import { useBackendMutation, useBackendQuery } from '@app/backend-react';
import type { QueuesResponse } from '@app/backend-server/console-api';
import { type FormEvent, useState } from 'react';
import { ErrorText } from '../components/ErrorText';
import { useConsole } from '../lib/context';
import { Link, navigate } from '../lib/router';
import { QueueView } from './QueueView';

/** The console's poll of the queues' metrics, so messages sent elsewhere show. */
const POLL_MS = 2000;

/** pgmq's queues (depth, ages, create) and, for one queue, its messages and actions. */
export default function Queues({ path }: { path: string }) {
  const { api } = useConsole();
  const [name, tab] = path.split('/');
  const queues = useBackendQuery(['queues'], () => api.get<QueuesResponse>('/queues'), {
    refetchInterval: POLL_MS,
  });
  if (queues.data && !queues.data.installed) {
    return (
      <section aria-labelledby="queues-heading">
        <h1 id="queues-heading">Queues</h1>
        <NotInstalled />
      </section>
    );
  }
  const queue = queues.data?.queues.find((q) => q.name === name);
  return (
    <div className="split">
      <section aria-labelledby="queues-heading" className="list-pane">
        <h1 id="queues-heading">Queues</h1>
        <ErrorText error={queues.error} />
        <ul className="plain" aria-label="Queues">
          {queues.data?.queues.map((q) => (
            <li key={q.name}>
              <Link to={`queues/${q.name}`} aria-current={q.name === name ? 'page' : undefined}>
                {q.name}
              </Link>{' '}
              <span className="muted">
                {q.length} message{q.length === 1 ? '' : 's'}
              </span>
            </li>
          ))}
          {queues.data?.queues.length === 0 && <li className="muted">No queues yet.</li>}
        </ul>
        <NewQueue />
      </section>
      <section className="detail-pane" aria-label="Queue">
        {queue ? (
          <QueueView key={queue.name} queue={queue} archive={tab === 'archive'} />
        ) : (
          <p className="muted">{name ? `No queue "${name}".` : 'Choose a queue.'}</p>
        )}
      </section>
    </div>
  );
}

function NotInstalled() {
  return (
    <div className="note">
      <p>
        pgmq is not installed in this database. Queues come with it: create it in a migration, then
        create queues with <code>pgmq.create</code> (or here).
      </p>
      <pre>
        {`create extension if not exists pgmq;

select pgmq.create('emails');`}
      </pre>
    </div>
  );
}

function NewQueue() {
  const { api } = useConsole();
  const [name, setName] = useState('');
  const create = useBackendMutation(
    (queue: string) => api.post<{ name: string }>('/queues', { name: queue }),
    {
      invalidates: [['queues']],
      onSuccess: (created) => {
        setName('');
        navigate(`queues/${created.name}`);
      },
    },
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(name);
  };
  return (
    <form onSubmit={submit} className="card" aria-labelledby="new-queue-heading">
      <h2 id="new-queue-heading">New queue</h2>
      <label htmlFor="queue-name">Name</label>
      <input id="queue-name" required value={name} onChange={(e) => setName(e.target.value)} />
      <button type="submit" className="primary" disabled={create.isPending}>
        Create queue
      </button>
      <ErrorText error={create.error} />
    </form>
  );
}
