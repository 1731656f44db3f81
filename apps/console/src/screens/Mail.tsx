import { useBackendMutation, useBackendQuery } from '@app/backend-react';
import type { Mail, Sms } from '@app/backend-server/console-api';
import { useState } from 'react';
import { ErrorText } from '../components/ErrorText';
import { useConsole } from '../lib/context';
import { when } from '../lib/format';
import { Link } from '../lib/router';

/** The mail as a document for a sandboxed frame: no scripts, links open a new tab. */
const framed = (html: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><base target="_blank"><title>Mail</title></head><body>${html}</body></html>`;

/** The outboxes: mail (rendered, links that work) and text messages, newest first. */
export default function MailScreen({ path }: { path: string }) {
  return (
    <>
      <nav aria-label="Outboxes" className="tabs">
        <Link to="mail" aria-current={path === 'sms' ? undefined : 'page'}>
          Mail
        </Link>
        <Link to="mail/sms" aria-current={path === 'sms' ? 'page' : undefined}>
          SMS
        </Link>
      </nav>
      {path === 'sms' ? <SmsOutbox /> : <MailOutbox />}
    </>
  );
}

function SmsOutbox() {
  const { api } = useConsole();
  const messages = useBackendQuery(['sms'], () => api.get<Sms[]>('/sms'), {
    refetchInterval: 2000,
  });
  const clear = useBackendMutation(() => api.delete('/sms'), { invalidates: [['sms']] });
  const list = messages.data ?? [];
  return (
    <section aria-labelledby="sms-heading">
      <h1 id="sms-heading">SMS</h1>
      <p className="muted">Phone sign-in, phone change and MFA codes: every text message sent.</p>
      <button type="button" onClick={() => clear.mutate(undefined)} disabled={list.length === 0}>
        Empty the SMS outbox
      </button>
      <ErrorText error={messages.error ?? clear.error} />
      <table className="grid">
        <caption className="visually-hidden">Text messages</caption>
        <thead>
          <tr>
            <th scope="col">To</th>
            <th scope="col">Type</th>
            <th scope="col">Code</th>
            <th scope="col">Message</th>
            <th scope="col">Sent</th>
          </tr>
        </thead>
        <tbody>
          {list.map((m, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: two messages may share number and time
            <tr key={`${m.sent_at}-${m.to}-${i}`}>
              <td>+{m.to}</td>
              <td>
                {m.type} ({m.channel}
                {m.provider === 'outbox' ? '' : `, ${m.provider}`})
              </td>
              <td>
                <code>{m.otp}</code>
              </td>
              <td>{m.body}</td>
              <td>{when(m.sent_at)}</td>
            </tr>
          ))}
          {messages.data && list.length === 0 && (
            <tr>
              <td colSpan={5} className="muted">
                No text messages yet.
              </td>
            </tr>
          )}
        </tbody>
      </table>
    </section>
  );
}

function MailOutbox() {
  const { api } = useConsole();
  const mails = useBackendQuery(['mail'], () => api.get<Mail[]>('/mail'), {
    refetchInterval: 2000,
  });
  const clear = useBackendMutation(() => api.delete('/mail'), { invalidates: [['mail']] });
  const [selected, setSelected] = useState(0);
  const list = mails.data ?? [];
  const mail = list[Math.min(selected, list.length - 1)];
  return (
    <div className="split">
      <section aria-labelledby="mail-heading" className="list-pane">
        <h1 id="mail-heading">Mail</h1>
        <p className="muted">
          Sign-up confirmations, magic links, password resets: everything sent.
        </p>
        <button type="button" onClick={() => clear.mutate(undefined)} disabled={list.length === 0}>
          Empty the outbox
        </button>
        <ErrorText error={mails.error ?? clear.error} />
        <ul className="plain mails" aria-label="Outbox">
          {list.map((m, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: two mails may share time, address and subject
            <li key={`${m.sent_at}-${m.to}-${i}`}>
              <button
                type="button"
                className="link"
                aria-current={i === selected ? 'true' : undefined}
                onClick={() => setSelected(i)}
              >
                <strong>{m.subject}</strong>
                <br />
                {m.to} · {when(m.sent_at)}
              </button>
            </li>
          ))}
          {mails.data && list.length === 0 && <li className="muted">No mail yet.</li>}
        </ul>
      </section>
      <section className="detail-pane" aria-label="Selected mail">
        {mail ? (
          <article>
            <h2>{mail.subject}</h2>
            <dl className="facts">
              <dt>To</dt>
              <dd>{mail.to}</dd>
              <dt>Type</dt>
              <dd>{mail.type}</dd>
              <dt>Sent</dt>
              <dd>{when(mail.sent_at)}</dd>
              {mail.otp && (
                <>
                  <dt>Code</dt>
                  <dd>
                    <code>{mail.otp}</code>
                  </dd>
                </>
              )}
            </dl>
            <h3>Links</h3>
            <ul className="plain">
              {mail.links.map((link) => (
                <li key={link}>
                  <a href={link} target="_blank" rel="noreferrer noopener">
                    {link}
                  </a>
                </li>
              ))}
            </ul>
            <iframe
              title={`Mail: ${mail.subject}`}
              className="mail-frame"
              sandbox="allow-popups allow-popups-to-escape-sandbox"
              srcDoc={framed(mail.html)}
            />
            <details>
              <summary>Plain text</summary>
              <pre>{mail.text}</pre>
            </details>
          </article>
        ) : (
          <p className="muted">Choose a mail.</p>
        )}
      </section>
    </div>
  );
}
