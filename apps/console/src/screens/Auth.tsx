import { useBackendMutation, useBackendQuery } from '@app/backend-react';
import { AuthError, type User } from '@app/backend-sdk';
import { type FormEvent, useState } from 'react';
import { ErrorText } from '../components/ErrorText';
import { settled } from '../lib/api';
import { useConsole } from '../lib/context';
import { when } from '../lib/format';
import { UserPanel } from './UserPanel';

const PER_PAGE = 50;

/** Users (search, create, act on one), their sessions, and the auth settings in force. */
export default function Auth() {
  const { client, session } = useConsole();
  const [search, setSearch] = useState('');
  const [filter, setFilter] = useState('');
  const [page, setPage] = useState(1);
  const [selected, setSelected] = useState<string | null>(null);
  const users = useBackendQuery(['users', filter, page], async () => {
    // The admin list's `filter` (email or phone contains), through the client's HTTP layer.
    const query = new URLSearchParams({ page: String(page), per_page: String(PER_PAGE) });
    if (filter) query.set('filter', filter);
    const res = await client.http.send({
      path: '/auth/v1/admin/users',
      query: query.toString(),
      error: (message, options) => new AuthError(message, options),
    });
    const body = (await res.json()) as { users?: User[]; msg?: string; message?: string };
    if (!res.ok) {
      return {
        data: null,
        error: new AuthError(body.msg ?? body.message ?? `HTTP ${res.status}`, {
          status: res.status,
        }),
      };
    }
    return {
      data: { users: body.users ?? [], total: Number(res.headers.get('x-total-count') ?? 0) },
      error: null,
    };
  });
  const total = users.data?.total ?? 0;
  const chosen = users.data?.users.find((u) => u.id === selected) ?? null;
  return (
    <section aria-labelledby="auth-heading">
      <h1 id="auth-heading">Auth</h1>
      <form
        className="toolbar"
        aria-label="User search"
        onSubmit={(e) => {
          e.preventDefault();
          setFilter(search.trim());
          setPage(1);
        }}
      >
        <label htmlFor="user-search">Search users</label>
        <input
          id="user-search"
          type="search"
          value={search}
          placeholder="email or phone contains…"
          onChange={(e) => setSearch(e.target.value)}
        />
        <button type="submit">Search</button>
        <span aria-live="polite">{users.data ? `${total} users` : ''}</span>
        <button type="button" disabled={page <= 1} onClick={() => setPage((p) => p - 1)}>
          Previous page
        </button>
        <button
          type="button"
          disabled={page * PER_PAGE >= total}
          onClick={() => setPage((p) => p + 1)}
        >
          Next page
        </button>
      </form>
      <ErrorText error={users.error} />
      <div className="scroll-x">
        <table className="grid">
          <caption>Users</caption>
          <thead>
            <tr>
              <th scope="col">Email or phone</th>
              <th scope="col">Created</th>
              <th scope="col">Last sign-in</th>
              <th scope="col">State</th>
              <th scope="col">
                <span className="visually-hidden">Open</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {users.data?.users.map((u) => (
              <tr key={u.id} aria-selected={u.id === selected}>
                <td>{u.email || u.phone || (u.is_anonymous ? 'anonymous' : u.id)}</td>
                <td>{when(u.created_at)}</td>
                <td>{when(u.last_sign_in_at)}</td>
                <td>{userState(u)}</td>
                <td>
                  <button
                    type="button"
                    onClick={() => setSelected(u.id === selected ? null : u.id)}
                  >
                    {u.id === selected ? 'Close' : 'Manage'}
                    <span className="visually-hidden"> {u.email ?? u.id}</span>
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {chosen && <UserPanel user={chosen} onDeleted={() => setSelected(null)} />}
      <CreateUser />
      <details>
        <summary>Auth settings in force</summary>
        <table className="grid">
          <caption className="visually-hidden">Auth settings</caption>
          <tbody>
            {Object.entries(session.settings.auth).map(([k, v]) => (
              <tr key={k}>
                <th scope="row">{k}</th>
                <td>
                  <code>{JSON.stringify(v)}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </section>
  );
}

export function userState(u: User): string {
  const banned = typeof u.banned_until === 'string' && new Date(u.banned_until) > new Date();
  if (banned) return 'banned';
  if (!u.email_confirmed_at && !u.phone_confirmed_at && !u.is_anonymous) return 'unconfirmed';
  return u.is_anonymous ? 'anonymous' : 'confirmed';
}

function CreateUser() {
  const { client } = useConsole();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState(true);
  const create = useBackendMutation(
    () => settled(client.auth.admin.createUser({ email, password, email_confirm: confirm })),
    { invalidates: [['users']], onSuccess: () => setEmail('') },
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(undefined);
  };
  return (
    <form onSubmit={submit} className="card" aria-labelledby="create-user-heading">
      <h2 id="create-user-heading">Create a user</h2>
      <label htmlFor="new-email">Email</label>
      <input
        id="new-email"
        type="email"
        required
        value={email}
        onChange={(e) => setEmail(e.target.value)}
      />
      <label htmlFor="new-password">Password</label>
      <input
        id="new-password"
        type="password"
        autoComplete="new-password"
        value={password}
        onChange={(e) => setPassword(e.target.value)}
      />
      <label className="inline">
        <input type="checkbox" checked={confirm} onChange={(e) => setConfirm(e.target.checked)} />
        Confirmed (no confirmation mail)
      </label>
      <button type="submit" className="primary" disabled={create.isPending}>
        Create user
      </button>
      <ErrorText error={create.error} />
      {create.isSuccess && <p role="status">User created.</p>}
    </form>
  );
}
