import { usePresence, useUser } from '@app/backend-react';
import { formatList } from '../format';
import { t } from '../i18n';

interface Here extends Record<string, unknown> {
  user_id: string;
  name: string;
  email: string;
}

/**
 * Who else is looking at this folder now: the private presence topic `shared:<folder id>`,
 * which the backend opens to the owner and the people with access only
 * (backend/migrations/*_sharing_live.sql). Joined while the folder is on screen; left when
 * the folder changes or the screen goes (also after losing access: the page moves away).
 */
export function FolderPresence({ folderId }: { folderId: string }) {
  const user = useUser();
  const meta = user?.user_metadata as Record<string, string | undefined> | undefined;
  const me: Here = {
    user_id: user?.id ?? '',
    name: meta?.display_name || meta?.full_name || user?.email || '',
    email: user?.email ?? '',
  };
  const presence = usePresence<Here>(`shared:${folderId}`, me, {
    enabled: Boolean(user),
    private: true,
  });
  // Others only, once each (someone may have the folder open in two tabs).
  const others = new Map<string, string>();
  for (const m of presence.members) {
    if (m.user_id && m.user_id !== user?.id) others.set(m.user_id, m.name || m.email);
  }
  const names = [...others.values()].sort((a, b) => a.localeCompare(b));
  // Always rendered, so that screen readers know the region before it speaks; it speaks only
  // when the set of people changes (the text is the same otherwise).
  return (
    <p className="here-too" role="status" aria-atomic="true">
      {names.length ? t('presence.alsoHere', { names: formatList(names) }) : ''}
    </p>
  );
}
