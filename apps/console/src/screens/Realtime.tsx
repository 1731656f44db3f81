import { useBackendQuery } from '@app/backend-react';
import { BackendError } from '@app/backend-sdk';
import type { RealtimeSnapshot } from '@app/backend-server/console-api';
import { type FormEvent, useState } from 'react';
import { ErrorText } from '../components/ErrorText';
import { useConsole } from '../lib/context';
import { when } from '../lib/format';

/** Open sockets and channels with their presence, and a broadcast sender. */
export default function Realtime() {
  const { api } = useConsole();
  const state = useBackendQuery(['realtime'], () => api.get<RealtimeSnapshot>('/realtime'), {
    refetchInterval: 1000,
  });
  const s = state.data;
  return (
    <section aria-labelledby="realtime-heading">
      <h1 id="realtime-heading">Realtime</h1>
      <ErrorText error={state.error} />
      <table className="grid">
        <caption>Channels ({s?.channels.length ?? 0})</caption>
        <thead>
          <tr>
            <th scope="col">Topic</th>
            <th scope="col">Kind</th>
            <th scope="col">Members</th>
            <th scope="col">Presence</th>
          </tr>
        </thead>
        <tbody>
          {s?.channels.map((c) => (
            <tr key={`${c.private}:${c.topic}`}>
              <td>{c.topic.replace(/^realtime:/, '')}</td>
              <td>{c.private ? 'private' : 'public'}</td>
              <td>{c.members}</td>
              <td>
                {Object.keys(c.presence).length === 0 ? (
                  '—'
                ) : (
                  <code>{JSON.stringify(c.presence)}</code>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <table className="grid">
        <caption>Connections ({s?.connections.length ?? 0})</caption>
        <thead>
          <tr>
            <th scope="col">Socket</th>
            <th scope="col">Role</th>
            <th scope="col">User</th>
            <th scope="col">Since</th>
            <th scope="col">Channels</th>
          </tr>
        </thead>
        <tbody>
          {s?.connections.map((c) => (
            <tr key={c.id}>
              <td>
                <code>{c.id}</code>
              </td>
              <td>{c.role ?? '—'}</td>
              <td>{c.user ?? '—'}</td>
              <td>{when(c.connectedAt)}</td>
              <td>{c.channels.map((t) => t.replace(/^realtime:/, '')).join(', ') || '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <BroadcastForm />
    </section>
  );
}

function BroadcastForm() {
  const { client } = useConsole();
  const [topic, setTopic] = useState('');
  const [event, setEvent] = useState('message');
  const [payload, setPayload] = useState('{"text": "hello"}');
  const [isPrivate, setPrivate] = useState(false);
  const [status, setStatus] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const send = async (e: FormEvent) => {
    e.preventDefault();
    setStatus(null);
    setError(null);
    let body: unknown;
    try {
      body = JSON.parse(payload);
    } catch {
      setError('The payload is not valid JSON');
      return;
    }
    try {
      const res = await client.http.send({
        method: 'POST',
        path: '/realtime/v1/api/broadcast',
        json: { messages: [{ topic, event, payload: body, private: isPrivate }] },
        headers: { 'content-type': 'application/json' },
        error: (m, o) => new BackendError(m, o),
      });
      if (res.ok) setStatus(`Sent "${event}" to ${topic}.`);
      else setError(`The server answered ${res.status}: ${await res.text()}`);
    } catch (failed) {
      setError(failed);
    }
  };
  return (
    <form className="card" onSubmit={send} aria-labelledby="broadcast-heading">
      <h2 id="broadcast-heading">Send a broadcast</h2>
      <label htmlFor="bc-topic">Channel topic</label>
      <input id="bc-topic" required value={topic} onChange={(e) => setTopic(e.target.value)} />
      <label htmlFor="bc-event">Event</label>
      <input id="bc-event" required value={event} onChange={(e) => setEvent(e.target.value)} />
      <label htmlFor="bc-payload">Payload (JSON)</label>
      <textarea
        id="bc-payload"
        className="code"
        rows={3}
        value={payload}
        onChange={(e) => setPayload(e.target.value)}
      />
      <label className="inline">
        <input type="checkbox" checked={isPrivate} onChange={(e) => setPrivate(e.target.checked)} />
        Private channel
      </label>
      <button type="submit" className="primary">
        Send
      </button>
      {status && <p role="status">{status}</p>}
      <ErrorText error={error} />
    </form>
  );
}
