/**
 * Offline use on every signed-in page: keeps the listings seen (persist.ts) and says so when
 * the browser is offline — what is shown is the last copy, read only.
 */
import { useQueryClient, useUser } from '@app/backend-react';
import { useEffect } from 'react';
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
      <strong>Offline — read only.</strong> You see your folders and files as they were when you
      last saw them.
    </p>
  );
}
