import { useAuth } from '@app/backend-react';
import type { ReactNode } from 'react';
import type { AuthApi } from '../lib/client-types';
import { markSignOutByUser } from '../lib/session';

/**
 * A button that signs out on purpose (so the sign-in screen does not call it an expiry).
 * `scope: 'local'` signs out this browser only; `before` runs first (e.g. forget thumbnails).
 */
export function SignOutButton(props: {
  className?: string;
  scope?: 'local';
  before?: () => void;
  children: ReactNode;
}) {
  const auth = useAuth<AuthApi>();
  return (
    <button
      type="button"
      className={props.className}
      onClick={() => {
        markSignOutByUser();
        props.before?.();
        void (props.scope ? auth.signOut({ scope: props.scope }) : auth.signOut());
      }}
    >
      {props.children}
    </button>
  );
}
