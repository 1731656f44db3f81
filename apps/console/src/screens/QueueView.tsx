import { useBackendMutation, useBackendQuery } from '@app/backend-react';
import type {
  QueueMessage,
  QueueMessages,
  QueueSendResponse,
  QueueSummary,
} from '@app/backend-server/console-api';
import { type FormEvent, useState } from 'react';
import { ErrorText } from '../components/ErrorText';
import { useConsole } from '../lib/context';
import { age, when } from '../lib/format';
import { Link, navigate } from '../lib/router';
import { cellText, fromText } from '../lib/values';

/** The console's poll of a queue's messages. */
const POLL_MS = 2000;

/** One queue: its metrics, purge and drop, send, read, and its messages or its archive. */
export function QueueView({ queue, archive }: { queue: QueueSummary; archive: boolean }) {
  const { api } = useConsole();
  const base = `/queues/${encodeURIComponent(queue.name)}`;
  const purge = useBackendMutation(() => api.post<{ deleted: number }>(`${base}/purge`, {}), {
    invalidates: [['queues']],
  });
  const drop = useBackendMutation(() => api.delete(base), {
    invalidates: [['queues']],
    onSuccess: () => navigate('queues'),
  });
  return (
    <>
      <div className="card">
        <h2>{queue.name}</h2>
        <dl className="facts">
          <dt>Messages</dt>
          <dd>{queue.length}</dd>
          <dt>Oldest message</dt>
          <dd>{queue.oldestAgeSec === null ? '—' : `${age(queue.oldestAgeSec)} old`}</dd>
          <dt>Newest message</dt>
          <dd>{queue.newestAgeSec === null ? '—' : `${age(queue.newestAgeSec)} old`}</dd>
          <dt>Sent in all</dt>
          <dd>{queue.totalMessages}</dd>
          <dt>Created</dt>
          <dd>
            {when(queue.created_at)}
            {queue.unlogged ? ' (unlogged)' : ''}
          </dd>
        </dl>
        <div className="toolbar">
          <button
            type="button"
            className="danger"
            disabled={purge.isPending}
            onClick={() => {
              if (confirm(`Delete every message of ${queue.name}?`)) purge.mutate(undefined);
            }}
          >
            Purge queue
          </button>
          <button
            type="button"
            className="danger"
            disabled={drop.isPending}
            onClick={() => {
              if (confirm(`Drop the queue ${queue.name} and its archive?`)) drop.mutate(undefined);
            }}
          >
            Drop queue
          </button>
        </div>
        <ErrorText error={purge.error ?? drop.error} />
      </div>
      <Send base={base} />
      <Read base={base} />
      <nav aria-label="Queue tables" className="tabs">
        <Link to={`queues/${queue.name}`} aria-current={archive ? undefined : 'page'}>
          Messages
        </Link>
        <Link to={`queues/${queue.name}/archive`} aria-current={archive ? 'page' : undefined}>
          Archive
        </Link>
      </nav>
      <Messages base={base} name={queue.name} archive={archive} />
    </>
  );
}

function Send({ base }: { base: string }) {
  const { api } = useConsole();
  const [text, setText] = useState('{\n  \n}');
  const [delay, setDelay] = useState('0');
  const [invalid, setInvalid] = useState<string | null>(null);
  const send = useBackendMutation(
    (body: { message: unknown; delay: number }) =>
      api.post<QueueSendResponse>(`${base}/send`, body),
    { invalidates: [['queues']] },
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = fromText(text, 'json', false);
    if (!parsed.ok) return setInvalid(`Message: ${parsed.message}.`);
    setInvalid(null);
    send.mutate({ message: parsed.value, delay: Number(delay) || 0 });
  };
  return (
    <form onSubmit={submit} className="card" aria-labelledby="send-heading">
      <h2 id="send-heading">Send a message</h2>
      <label htmlFor="queue-message">Message (JSON)</label>
      <textarea
        id="queue-message"
        className="code"
        rows={4}
        value={text}
        onChange={(e) => setText(e.target.value)}
      />
      <label htmlFor="queue-delay">Delay (seconds before it can be read)</label>
      <input
        id="queue-delay"
        type="number"
        min={0}
        step={1}
        value={delay}
        onChange={(e) => setDelay(e.target.value)}
      />
      <button type="submit" className="primary" disabled={send.isPending}>
        Send
      </button>
      <p aria-live="polite">{send.data ? `Sent message ${send.data.msg_id}.` : ''}</p>
      <ErrorText error={invalid ?? send.error} />
    </form>
  );
}

function Read({ base }: { base: string }) {
  const { api } = useConsole();
  const [vt, setVt] = useState('30');
  const [qty, setQty] = useState('1');
  const read = useBackendMutation(
    (body: { vt: number; qty: number }) => api.post<QueueMessage[]>(`${base}/read`, body),
    { invalidates: [['queues']] },
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    read.mutate({ vt: Number(vt) || 0, qty: Number(qty) || 1 });
  };
  return (
    <form onSubmit={submit} className="card" aria-labelledby="read-heading">
      <h2 id="read-heading">Read messages</h2>
      <p className="muted">
        As a consumer reads: the messages read stay in the queue, hidden from other readers until
        their visibility timeout passes (archive or delete them to finish them).
      </p>
      <label htmlFor="read-vt">Visibility timeout (seconds)</label>
      <input
        id="read-vt"
        type="number"
        min={0}
        step={1}
        value={vt}
        onChange={(e) => setVt(e.target.value)}
      />
      <label htmlFor="read-qty">How many</label>
      <input
        id="read-qty"
        type="number"
        min={1}
        max={100}
        step={1}
        value={qty}
        onChange={(e) => setQty(e.target.value)}
      />
      <button type="submit" disabled={read.isPending}>
        Read
      </button>
      <ErrorText error={read.error} />
      {read.data && (
        <MessageTable
          caption="Messages read"
          messages={read.data}
          empty="No visible message to read."
        />
      )}
    </form>
  );
}

function Messages({ base, name, archive }: { base: string; name: string; archive: boolean }) {
  const { api } = useConsole();
  const list = useBackendQuery(
    ['queues', name, 'messages', archive],
    () => api.get<QueueMessages>(`${base}/messages${archive ? '?archive=1' : ''}`),
    { refetchInterval: POLL_MS },
  );
  const act = useBackendMutation(
    ({ id, action }: { id: string; action: 'archive' | 'delete' }) =>
      action === 'archive'
        ? api.post(`${base}/messages/${id}/archive`, {})
        : api.delete(`${base}/messages/${id}`),
    { invalidates: [['queues']] },
  );
  const shown = list.data?.messages.length ?? 0;
  const total = list.data?.total ?? 0;
  return (
    <section aria-label={archive ? 'Archived messages' : 'Messages in the queue'}>
      <ErrorText error={list.error ?? act.error} />
      {total > shown && (
        <p className="muted">
          The {shown} {archive ? 'newest' : 'oldest'} of {total} messages.
        </p>
      )}
      <MessageTable
        caption={archive ? `Archive of ${name}` : `Messages of ${name}`}
        messages={list.data?.messages ?? []}
        empty={list.data ? (archive ? 'No archived messages.' : 'The queue is empty.') : ''}
        archive={archive}
        onAction={archive ? undefined : (id, action) => act.mutate({ id, action })}
        busy={act.isPending}
      />
    </section>
  );
}

function MessageTable(props: {
  caption: string;
  messages: QueueMessage[];
  empty: string;
  archive?: boolean;
  onAction?: (id: string, action: 'archive' | 'delete') => void;
  busy?: boolean;
}) {
  const { onAction } = props;
  const now = Date.now();
  return (
    <div className="scroll-x">
      <table className="grid">
        <caption>{props.caption}</caption>
        <thead>
          <tr>
            <th scope="col">Id</th>
            <th scope="col">Reads</th>
            <th scope="col">Sent</th>
            <th scope="col">{props.archive ? 'Archived' : 'Visible'}</th>
            <th scope="col">Message</th>
            {onAction && (
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>
          {props.messages.map((m) => (
            <tr key={m.msg_id}>
              <td>{m.msg_id}</td>
              <td>{m.read_ct}</td>
              <td>{when(m.enqueued_at)}</td>
              <td>
                {props.archive
                  ? when(m.archived_at)
                  : new Date(m.vt).getTime() <= now
                    ? 'yes'
                    : `hidden until ${when(m.vt)}`}
              </td>
              <td>
                <code>{cellText(m.message)}</code>
              </td>
              {onAction && (
                <td className="nowrap">
                  <button
                    type="button"
                    disabled={props.busy}
                    onClick={() => onAction(m.msg_id, 'archive')}
                  >
                    Archive<span className="visually-hidden"> message {m.msg_id}</span>
                  </button>{' '}
                  <button
                    type="button"
                    className="danger"
                    disabled={props.busy}
                    onClick={() => onAction(m.msg_id, 'delete')}
                  >
                    Delete<span className="visually-hidden"> message {m.msg_id}</span>
                  </button>
                </td>
              )}
            </tr>
          ))}
          {props.messages.length === 0 && props.empty && (
            <tr>
              <td colSpan={onAction ? 6 : 5} className="muted">
                {props.empty}
              </td>
            </tr>
          )}
        </tbody>
      </table>
    </div>
  );
}
