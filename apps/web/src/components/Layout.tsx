import {
  useLiveTopic,
  usePresence,
  useQueryClient,
  useUploadQueue,
  useUser,
} from '@app/backend-react';
import { lazy, Suspense, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { Link, NavLink, Outlet } from 'react-router';
import { t } from '../i18n';
import { LIVE_KEYS } from '../lib/api';
import { fromDrop } from '../lib/dropped';
import { markSignedIn } from '../lib/session';
import { forgetThumbnails } from '../lib/thumbnails';
import { driveUploadQueue, restoreUploads } from '../lib/uploads';
import { useAccessEvents } from '../lib/use-access-events';
import { useDrive } from '../lib/use-drive';
import { OfflineBanner } from '../offline/OfflineBanner';
import { forgetOffline } from '../offline/persist';
import { useAddFiles } from './add-files';
import type { LayoutContext } from './layout-context';
import { ReplaceDialogHost } from './ReplaceDialog';
import { SignOutButton } from './SignOutButton';
import { Toasts } from './Toasts';
import { UploadTray } from './UploadTray';

/** Changes made offline: sent on reconnect, conflicts to decide (its own chunk). */
const SyncPanel = lazy(() =>
  import('../offline/SyncPanel').then((m) => ({ default: m.SyncPanel })),
);

function hasFiles(event: DragEvent): boolean {
  return Array.from(event.dataTransfer?.types ?? []).includes('Files');
}

/** Header, upload tray and drop zone around every signed-in page. */
export default function Layout() {
  const client = useDrive();
  const user = useUser();
  const queryClient = useQueryClient();
  const queue = useMemo(
    () =>
      driveUploadQueue(client, () => {
        for (const queryKey of LIVE_KEYS) void queryClient.invalidateQueries({ queryKey });
      }),
    [client, queryClient],
  );
  const uploads = useUploadQueue(queue);
  const [target, setTarget] = useState<string | null>(null);
  const [dragging, setDragging] = useState(false);
  const addFiles = useAddFiles(queue);
  const depth = useRef(0);

  useEffect(() => {
    if (user) markSignedIn();
  }, [user]);
  // Uploads a reload or a crash left unfinished are listed again (the tray offers Resume).
  useEffect(() => {
    if (user?.id) void restoreUploads(queue, user.id);
  }, [queue, user?.id]);

  // Live updates: the database announces every change of the user's files and folders on
  // the private topic `drive:<user id>` (backend/migrations/*_live_updates.sql); each message,
  // and each reconnect or wake-up of the page, refetches what is on screen.
  // Access given, changed or removed (event `access`, sharing) refetches too, and may send
  // the page away from what the user can no longer see (lib/use-access-events.ts).
  const onAccess = useAccessEvents();
  useLiveTopic(`drive:${user?.id ?? 'none'}`, {
    event: '*',
    enabled: Boolean(user),
    onMessage: onAccess,
  });
  // Private: the backend admits only this user (policies on realtime.messages, see
  // backend/migrations/*_presence.sql).
  const presence = usePresence(
    `devices:${user?.id ?? 'none'}`,
    { since: new Date().toISOString() },
    { enabled: Boolean(user), private: true },
  );

  // Drag and drop anywhere on the page.
  useEffect(() => {
    const enter = (e: DragEvent) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      depth.current += 1;
      setDragging(true);
    };
    const over = (e: DragEvent) => {
      if (hasFiles(e)) e.preventDefault();
    };
    const leave = () => {
      depth.current = Math.max(0, depth.current - 1);
      if (depth.current === 0) setDragging(false);
    };
    const drop = (e: DragEvent) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      depth.current = 0;
      setDragging(false);
      if (!e.dataTransfer) return;
      // Read now (the items are gone after the event); folders keep their tree.
      const target = targetRef.current;
      void fromDrop(e.dataTransfer).then((picked) => {
        if (picked.files.length || picked.folders.length) addFiles(picked, target);
      });
    };
    window.addEventListener('dragenter', enter);
    window.addEventListener('dragover', over);
    window.addEventListener('dragleave', leave);
    window.addEventListener('drop', drop);
    return () => {
      window.removeEventListener('dragenter', enter);
      window.removeEventListener('dragover', over);
      window.removeEventListener('dragleave', leave);
      window.removeEventListener('drop', drop);
    };
  }, [addFiles]);
  const targetRef = useRef(target);
  targetRef.current = target;

  const setUploadTarget = useCallback((id: string | null) => setTarget(id), []);
  const context = useMemo<LayoutContext>(
    () => ({ setUploadTarget, addFiles }),
    [setUploadTarget, addFiles],
  );
  const meta = user?.user_metadata as Record<string, string | undefined> | undefined;
  // Accounts made through a provider (GitHub, Google) carry its `full_name`.
  const name = meta?.display_name || meta?.full_name || user?.email || '';

  return (
    <div className="app">
      <a className="skip" href="#main">
        {t('nav.skip')}
      </a>
      <header className="topbar">
        <Link to="/files" className="brand">
          {t('nav.brand')}
        </Link>
        <nav aria-label={t('nav.main')}>
          <NavLink to="/files" end={false}>
            {t('nav.files')}
          </NavLink>
          <NavLink to="/settings">{t('nav.settings')}</NavLink>
        </nav>
        <div className="topbar-end">
          <span
            className="presence"
            role="status"
            aria-live="polite"
            title={t('nav.presenceTitle')}
          >
            <span className="dot" aria-hidden="true" />
            {t('nav.presence', { count: Math.max(1, presence.count) })}
          </span>
          <span className="who" title={user?.email}>
            {name}
          </span>
          <SignOutButton
            before={() => {
              forgetThumbnails();
              void forgetOffline();
            }}
          >
            {t('nav.signOut')}
          </SignOutButton>
        </div>
      </header>
      {uploads.offline ? (
        <p className="banner" role="status">
          {t('nav.offlineUploads')}
        </p>
      ) : null}
      <OfflineBanner />
      <Suspense fallback={null}>
        <SyncPanel />
      </Suspense>
      <div id="main" className="content">
        <Outlet context={context} />
      </div>
      <UploadTray view={uploads} />
      <Toasts />
      <ReplaceDialogHost />
      {dragging ? (
        <div className="dropzone" aria-hidden="true">
          <p>{t('nav.drop')}</p>
        </div>
      ) : null}
    </div>
  );
}
