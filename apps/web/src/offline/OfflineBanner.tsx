/**
 * Offline use on every signed-in page: keeps the listings seen (persist.ts) and says so when
 * the browser is offline — what is shown is the last copy; renames, moves and new folders wait
 * in the queue (queue.ts).
 */
import { useQueryClient, useUser } from '@app/backend-react';
import { useEffect } from 'react';
import { t } from '../i18n';
import { useOnline } from './online';
import { keepListings } from './persist';

export function OfflineBanner() {
  const queryClient = useQueryClient();
  const userId = useUser()?.id;
  const online = useOnline();
  useEffect(() => (userId ? keepListings(queryClient, userId) : undefined), [queryClient, userId]);
  if (online) return null;
  return (
    <p className="banner offline" role="status">
      <strong>{t('offline.bannerTitle')}</strong> {t('offline.bannerText')}
    </p>
  );
}
