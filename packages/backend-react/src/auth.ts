import { useCallback, useSyncExternalStore } from 'react';
import { useBackendClient } from './provider';
import type { AuthLike, SessionLike, UserLike } from './types';

/** What {@link useSession} returns. */
export interface SessionState {
  /** True until the stored session has been read once. */
  loading: boolean;
  /** The current session, or null when signed out. */
  session: SessionLike | null;
  /** The last auth event (`SIGNED_IN`, `SIGNED_OUT`, `TOKEN_REFRESHED`, `PASSWORD_RECOVERY`, …). */
  event: string | null;
}

interface SessionStore {
  state: SessionState;
  listeners: Set<() => void>;
  stop: (() => void) | null;
}

const stores = new WeakMap<AuthLike, SessionStore>();
const LOADING: SessionState = { loading: true, session: null, event: null };

function storeFor(auth: AuthLike): SessionStore {
  let store = stores.get(auth);
  if (!store) {
    store = { state: LOADING, listeners: new Set(), stop: null };
    stores.set(auth, store);
  }
  return store;
}

function publish(store: SessionStore, next: SessionState): void {
  const prev = store.state;
  if (
    prev.loading === next.loading &&
    prev.session?.access_token === next.session?.access_token &&
    prev.event === next.event
  ) {
    return;
  }
  store.state = next;
  for (const listener of store.listeners) listener();
}

/** One auth subscription per client, shared by every hook, started with the first listener. */
function subscribe(auth: AuthLike, store: SessionStore, listener: () => void): () => void {
  store.listeners.add(listener);
  if (!store.stop) {
    let live = true;
    const { data } = auth.onAuthStateChange((event, session) => {
      if (live) publish(store, { loading: false, session, event });
    });
    void Promise.resolve(auth.getSession()).then(
      (result) => {
        if (live && store.state.loading) {
          publish(store, { loading: false, session: result.data?.session ?? null, event: null });
        }
      },
      () => {
        if (live && store.state.loading)
          publish(store, { loading: false, session: null, event: null });
      },
    );
    store.stop = () => {
      live = false;
      data.subscription.unsubscribe();
    };
  }
  return () => {
    store.listeners.delete(listener);
    if (store.listeners.size === 0) {
      // Keep the last known state: a remount (StrictMode, route change) shows it at once.
      store.stop?.();
      store.stop = null;
    }
  };
}

/**
 * The current session, kept up to date by the client's auth events (sign in, sign out, token
 * refresh, other tabs). One subscription per client however many components use it.
 *
 * @example
 * const { loading, session } = useSession();
 * if (loading) return <Spinner />;
 * return session ? <Files /> : <Navigate to="/sign-in" />;
 */
export function useSession(): SessionState {
  const client = useBackendClient<{ auth: AuthLike }>();
  const auth = client.auth;
  const store = storeFor(auth);
  const listen = useCallback(
    (listener: () => void) => subscribe(auth, storeFor(auth), listener),
    [auth],
  );
  return useSyncExternalStore(
    listen,
    () => store.state,
    () => LOADING,
  );
}

/**
 * The signed-in user, or null (also null while loading; check {@link useSession} to tell).
 *
 * @example
 * const user = useUser();
 * return <span>{user?.email}</span>;
 */
export function useUser(): UserLike | null {
  return useSession().session?.user ?? null;
}

/**
 * The client's auth capability, for actions (`signInWithPassword`, `signUp`, `signOut`,
 * `updateUser`, `resetPasswordForEmail`, …). Pair it with {@link useBackendMutation} for
 * pending and error state.
 *
 * @example
 * const auth = useAuth<typeof client.auth>();
 * const signIn = useBackendMutation((v: { email: string; password: string }) =>
 *   auth.signInWithPassword(v));
 */
export function useAuth<TAuth = AuthLike>(): TAuth {
  return useBackendClient<{ auth: TAuth }>().auth;
}
