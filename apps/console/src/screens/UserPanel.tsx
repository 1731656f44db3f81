import { useBackendMutation, useBackendQuery } from '@app/backend-react';
import type { User } from '@app/backend-sdk';
import type { AuthSessionRow } from '@app/backend-server/console-api';
import { useState } from 'react';
import { ErrorText } from '../components/ErrorText';
import { settled } from '../lib/api';
import { useConsole } from '../lib/context';
import { when } from '../lib/format';
import { userState } from './Auth';

const REDIRECT_KEY = 'backend-console-sign-in-redirect';

/** One user: confirm, ban, password, sign in as (for local testing), delete; sessions. */
export function UserPanel({ user, onDeleted }: { user: User; onDeleted(): void }) {
  const { client, api, session } = useConsole();
  const admin = client.auth.admin;
  const [message, setMessage] = useState<string | null>(null);
  const [link, setLink] = useState<string | null>(null);
  const [redirect, setRedirect] = useState(
    () =>
      localStorage.getItem(REDIRECT_KEY) ?? String(session.settings.auth.siteUrl ?? session.url),
  );
  const [password, setPassword] = useState('');
  const invalidates = [['users']];
  const update = useBackendMutation(
    (attributes: Parameters<typeof admin.updateUserById>[1]) =>
      settled(admin.updateUserById(user.id, attributes)),
    {
      invalidates,
      onSuccess: (_data, attributes) =>
        setMessage(attributes.password ? 'Password set.' : 'Saved.'),
    },
  );
  const change = (attributes: Parameters<typeof admin.updateUserById>[1]) => {
    setMessage(null);
    update.mutate(attributes);
  };
  const remove = useBackendMutation(() => settled(admin.deleteUser(user.id)), {
    invalidates,
    onSuccess: onDeleted,
  });
  const reset = useBackendMutation(
    () => settled(client.auth.resetPasswordForEmail(user.email ?? '', { redirectTo: redirect })),
    { onSuccess: () => setMessage('Password reset mail sent: see the Mail screen.') },
  );
  const signInAs = useBackendMutation(
    () =>
      settled<{ properties?: { action_link?: string } }>(
        admin.generateLink({
          type: 'magiclink',
          email: user.email ?? '',
          options: { redirectTo: redirect },
        }),
      ),
    {
      onSuccess: (data) => {
        const action = data.properties?.action_link;
        localStorage.setItem(REDIRECT_KEY, redirect);
        if (action) {
          setLink(action);
          window.open(action, '_blank', 'noopener');
        }
      },
    },
  );
  const sessions = useBackendQuery(['sessions', user.id], () =>
    api.get<AuthSessionRow[]>(`/auth/users/${user.id}/sessions`),
  );
  const revoke = useBackendMutation((id: string) => api.delete(`/auth/sessions/${id}`), {
    invalidates: [['sessions', user.id]],
  });
  const banned = userState(user) === 'banned';
  const error = update.error ?? remove.error ?? reset.error ?? signInAs.error ?? revoke.error;
  const label = user.email ?? user.phone ?? user.id;

  return (
    <section className="card" aria-labelledby="user-heading">
      <h2 id="user-heading">{label}</h2>
      <dl className="facts">
        <dt>Id</dt>
        <dd>
          <code>{user.id}</code>
        </dd>
        <dt>State</dt>
        <dd>{userState(user)}</dd>
        <dt>Providers</dt>
        <dd>{(user.app_metadata.providers ?? []).join(', ') || '—'}</dd>
        <dt>Created</dt>
        <dd>{when(user.created_at)}</dd>
      </dl>
      <div className="toolbar">
        {userState(user) === 'unconfirmed' && (
          <button type="button" onClick={() => change({ email_confirm: true })}>
            Confirm email
          </button>
        )}
        <button type="button" onClick={() => change({ ban_duration: banned ? 'none' : '876000h' })}>
          {banned ? 'Unban' : 'Ban'}
        </button>
        <button
          type="button"
          disabled={!user.email}
          onClick={() => {
            setMessage(null);
            reset.mutate(undefined);
          }}
        >
          Send password reset
        </button>
        <button
          type="button"
          className="danger"
          onClick={() => {
            if (confirm(`Delete ${label} and everything that cascades from it?`))
              remove.mutate(undefined);
          }}
        >
          Delete user
        </button>
      </div>
      <form
        className="toolbar"
        onSubmit={(e) => {
          e.preventDefault();
          change({ password });
          setPassword('');
        }}
      >
        <label htmlFor="set-password">New password</label>
        <input
          id="set-password"
          type="password"
          autoComplete="new-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
        <button type="submit" disabled={!password}>
          Set password
        </button>
      </form>
      <form
        className="toolbar"
        onSubmit={(e) => {
          e.preventDefault();
          signInAs.mutate(undefined);
        }}
      >
        <label htmlFor="sign-in-redirect">App address</label>
        <input
          id="sign-in-redirect"
          type="url"
          value={redirect}
          onChange={(e) => setRedirect(e.target.value)}
        />
        <button type="submit" disabled={!user.email}>
          Sign in as this user
        </button>
      </form>
      <p className="muted">
        Sign in as: a one-time magic link for local testing, opened in a new tab; the app at that
        address receives the session.
      </p>
      {link && (
        <p>
          Magic link:{' '}
          <a href={link} target="_blank" rel="noreferrer noopener">
            {link}
          </a>
        </p>
      )}
      {message && <p role="status">{message}</p>}
      <ErrorText error={error} />
      <table className="grid">
        <caption>Sessions</caption>
        <thead>
          <tr>
            <th scope="col">Started</th>
            <th scope="col">Refreshed</th>
            <th scope="col">Client</th>
            <th scope="col">
              <span className="visually-hidden">Revoke</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {sessions.data?.map((s) => (
            <tr key={s.id}>
              <td>{when(s.created_at)}</td>
              <td>{when(s.refreshed_at ?? s.updated_at)}</td>
              <td>
                {s.user_agent ?? '—'} {s.ip ? `(${s.ip})` : ''}
              </td>
              <td>
                <button type="button" onClick={() => revoke.mutate(s.id)}>
                  Revoke
                </button>
              </td>
            </tr>
          ))}
          {sessions.data?.length === 0 && (
            <tr>
              <td colSpan={4} className="muted">
                No sessions.
              </td>
            </tr>
          )}
        </tbody>
      </table>
    </section>
  );
}
