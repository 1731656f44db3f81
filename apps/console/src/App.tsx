import { BackendProvider, createQueryClient } from '@app/backend-react';
import type { Client } from '@app/backend-sdk';
import type { ConsoleSession } from '@app/backend-server/console-api';
import { lazy, Suspense, useEffect, useMemo } from 'react';
import type { ConsoleApi } from './lib/api';
import { Console } from './lib/context';
import { Link, navigate, usePath } from './lib/router';

const Tables = lazy(() => import('./screens/Tables'));
const Sql = lazy(() => import('./screens/Sql'));
const Auth = lazy(() => import('./screens/Auth'));
const Storage = lazy(() => import('./screens/Storage'));
const Mail = lazy(() => import('./screens/Mail'));
const Logs = lazy(() => import('./screens/Logs'));
const Realtime = lazy(() => import('./screens/Realtime'));
const Cron = lazy(() => import('./screens/Cron'));
const Queues = lazy(() => import('./screens/Queues'));
const S3Keys = lazy(() => import('./screens/S3Keys'));

const SCREENS = [
  { path: 'tables', title: 'Tables', Screen: Tables },
  { path: 'sql', title: 'SQL', Screen: Sql },
  { path: 'auth', title: 'Auth', Screen: Auth },
  { path: 'storage', title: 'Storage', Screen: Storage },
  { path: 'mail', title: 'Mail', Screen: Mail },
  { path: 'logs', title: 'Logs', Screen: Logs },
  { path: 'realtime', title: 'Realtime', Screen: Realtime },
  { path: 'cron', title: 'Cron', Screen: Cron },
  { path: 'queues', title: 'Queues', Screen: Queues },
  { path: 's3-keys', title: 'S3 keys', Screen: S3Keys },
] as const;

export function App({
  session,
  api,
  client,
}: {
  session: ConsoleSession;
  api: ConsoleApi;
  client: Client;
}) {
  const queryClient = useMemo(() => createQueryClient(), []);
  const value = useMemo(() => ({ session, api, client }), [session, api, client]);
  const path = usePath();
  const first = path.split('/')[0] ?? '';
  const screen = SCREENS.find((s) => s.path === first);
  useEffect(() => {
    if (!screen) navigate('tables', true);
  }, [screen]);
  useEffect(() => {
    document.title = `${screen?.title ?? 'Console'} · Backend console`;
  }, [screen]);
  return (
    <BackendProvider client={client} queryClient={queryClient}>
      <Console.Provider value={value}>
        <div className="shell">
          <header className="top">
            <span className="brand">Backend console</span>
            <span className="server">
              {session.url} · {session.settings.database === 'pglite' ? 'PGlite' : 'PostgreSQL'}
            </span>
          </header>
          <nav aria-label="Screens" className="side">
            <ul>
              {SCREENS.map((s) => (
                <li key={s.path}>
                  <Link to={s.path} aria-current={s === screen ? 'page' : undefined}>
                    {s.title}
                  </Link>
                </li>
              ))}
            </ul>
          </nav>
          <main className="content">
            <Suspense fallback={<p className="muted">Loading…</p>}>
              {screen && <screen.Screen path={path.slice(first.length + 1)} />}
            </Suspense>
          </main>
        </div>
      </Console.Provider>
    </BackendProvider>
  );
}
