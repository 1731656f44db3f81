/**
 * Access given, changed or removed (event `access` on the user's own topic `drive:<user id>`,
 * backend/migrations/*_sharing_live.sql): the page's queries are refetched by the live topic
 * (what the user lost disappears from every list, row level security answering); here, when
 * the folder on screen is the item or lies below it and the user can no longer see it, the
 * page goes away with a note, and an open preview of it closes.
 */
import { type LiveMessage, useQueryClient } from '@app/backend-react';
import { useCallback, useRef } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { t } from '../i18n';
import { ACCESS_REVOKED, type FolderPlace, folderPlace } from './activity-api';
import { keys } from './api';
import { showToast } from './toasts';
import { useDrive } from './use-drive';

/** Where the page goes after losing access to what it shows. */
export const AWAY_FROM_REVOKED = '/shared';

interface AccessEvent {
  op: 'granted' | 'role' | 'revoked';
  grant_id: string;
  kind: 'file' | 'folder';
  id: string;
  role: string;
}

/** The name of an item as any cached query has it (the item itself is no longer readable). */
function cachedName(queries: Array<[unknown, unknown]>, id: string): string | undefined {
  const look = (value: unknown, depth: number): string | undefined => {
    if (!value || typeof value !== 'object' || depth > 3) return undefined;
    if (Array.isArray(value)) {
      for (const v of value) {
        const found = look(v, depth + 1);
        if (found) return found;
      }
      return undefined;
    }
    const row = value as { id?: unknown; name?: unknown };
    if (row.id === id && typeof row.name === 'string') return row.name;
    for (const v of Object.values(value)) {
      if (v && typeof v === 'object') {
        const found = look(v, depth + 1);
        if (found) return found;
      }
    }
    return undefined;
  };
  for (const [, data] of queries) {
    const found = look(data, 0);
    if (found) return found;
  }
  return undefined;
}

/** The `onMessage` of the user's live topic. */
export function useAccessEvents(): (message: LiveMessage) => void {
  const client = useDrive();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const location = useLocation();
  const path = useRef(location.pathname);
  path.current = location.pathname;

  return useCallback(
    (message: LiveMessage) => {
      if (message.event !== 'access') return;
      const access = message.payload as AccessEvent | null;
      if (access?.op !== 'revoked' || !access.id) return;
      const name = cachedName(queryClient.getQueriesData({}), access.id);
      window.dispatchEvent(new CustomEvent(ACCESS_REVOKED, { detail: { id: access.id } }));
      const folderId = /^\/files\/([^/]+)/.exec(path.current)?.[1];
      if (!folderId) return;
      const here = queryClient.getQueryData<FolderPlace | null>(keys.folder(folderId));
      if (!here || (here.id !== access.id && !here.ancestors.includes(access.id))) return;
      // The owner hears of it too, and access may remain through another grant: only when
      // the folder is no longer readable does the page leave it.
      void Promise.resolve(folderPlace(client, folderId)).then((now) => {
        if (now.error || now.data) return;
        if (path.current.startsWith(`/files/${folderId}`)) {
          navigate(AWAY_FROM_REVOKED, { replace: true });
        }
        showToast({ message: t('access.lost', { name: name ?? here.name }) });
      });
    },
    [client, queryClient, navigate],
  );
}
