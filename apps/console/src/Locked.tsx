import type { LoginResponse } from '@app/backend-server/console-api';
import { type FormEvent, useState } from 'react';
import { ConsoleApi, TOKEN_KEY } from './lib/api';

/** Shown without a valid console token: the link to open, or the password when there is one. */
export function Locked({ reason }: { reason: string }) {
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const { data, error: failed } = await ConsoleApi.create('none').post<LoginResponse>('/login', {
      password,
    });
    if (failed || !data) {
      setError(failed?.message ?? 'Could not sign in');
      return;
    }
    localStorage.setItem(TOKEN_KEY, data.token);
    location.reload();
  };
  return (
    <main className="locked">
      <h1>Backend console</h1>
      <p>{reason}</p>
      <p>
        Open the <strong>Console</strong> link that <code>backend-server start</code> (or{' '}
        <code>pnpm start</code>) printed: it carries this server's console secret.
      </p>
      <form onSubmit={submit}>
        <label htmlFor="console-password">Console password (servers started with one)</label>
        <input
          id="console-password"
          type="password"
          autoComplete="current-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
        <button type="submit">Unlock</button>
        {error && <p role="alert">{error}</p>}
      </form>
    </main>
  );
}
