import { createClient } from '@app/backend-sdk';
import type { ConsoleSession } from '@app/backend-server/console-api';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { Locked } from './Locked';
import { ConsoleApi, TOKEN_KEY } from './lib/api';
import './styles.css';

/**
 * Boot: the console link carries its token in the fragment (`#token=…`); it is kept in this
 * origin's storage and removed from the address bar. The session call then proves it and
 * returns the project's keys; without a valid token the page asks for the console link (or
 * the console password, when the server has one).
 */
async function boot() {
  const root = createRoot(document.getElementById('root') as HTMLElement);
  const fragment = new URLSearchParams(location.hash.slice(1));
  const fromLink = fragment.get('token');
  if (fromLink) {
    localStorage.setItem(TOKEN_KEY, fromLink);
    history.replaceState(history.state, '', location.pathname + location.search);
  }
  const token = localStorage.getItem(TOKEN_KEY) ?? '';
  const probe = ConsoleApi.create(token || 'none');
  const { data: session, error } = await probe.get<ConsoleSession>('/session');
  if (error || !session) {
    root.render(
      <StrictMode>
        <Locked reason={error?.message ?? 'No session'} />
      </StrictMode>,
    );
    return;
  }
  const api = ConsoleApi.create(token, session.serviceRoleKey);
  const client = createClient(session.url, session.serviceRoleKey, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
  });
  root.render(
    <StrictMode>
      <App session={session} api={api} client={client} />
    </StrictMode>,
  );
}

void boot();
