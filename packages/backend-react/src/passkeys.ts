import { useCallback, useState } from 'react';
import { useUser } from './auth';
import { useBackendClient } from './provider';
import { useBackendMutation, useBackendQuery } from './query';
import type { ResultLike } from './types';

/** A passkey as `auth.passkey.list()` returns it. */
export interface PasskeyLike {
  id: string;
  friendly_name?: string | undefined;
  created_at: string;
  last_used_at?: string | undefined;
}

/** The passkey capability of the auth client, as far as these hooks need it. */
export interface PasskeyAuthLike {
  signInWithPasskey(params?: {
    options?: { captchaToken?: string; signal?: AbortSignal };
  }): PromiseLike<ResultLike<unknown>>;
  registerPasskey(params?: {
    options?: { signal?: AbortSignal };
  }): PromiseLike<ResultLike<PasskeyLike>>;
  passkey: {
    list(): PromiseLike<ResultLike<PasskeyLike[]>>;
    update(params: {
      passkeyId: string;
      friendlyName: string;
    }): PromiseLike<ResultLike<PasskeyLike>>;
    delete(params: { passkeyId: string }): PromiseLike<ResultLike<unknown>>;
  };
}

const useAuthClient = () => useBackendClient<{ auth: PasskeyAuthLike }>().auth;

/** What {@link usePasskeys} returns. */
export interface PasskeysState {
  /** The signed-in user's passkeys, oldest first (undefined while loading or signed out). */
  passkeys: PasskeyLike[] | undefined;
  /** True until the first list arrives. */
  isPending: boolean;
  /** The last failure: of the list, or of `add`, `rename` or `remove` (a cancelled prompt too). */
  error: unknown;
  /** True while `add`, `rename` or `remove` runs. */
  busy: boolean;
  /** The browser's prompt to create a passkey, then the list again; false when it failed. */
  add(): Promise<boolean>;
  rename(passkeyId: string, friendlyName: string): Promise<boolean>;
  remove(passkeyId: string): Promise<boolean>;
}

/**
 * The signed-in user's passkeys, cached, with add (the browser's prompt), rename and remove;
 * each change refreshes the list.
 *
 * @example
 * const { passkeys, add, rename, remove, error } = usePasskeys();
 * <button onClick={() => void add()}>Add a passkey</button>
 */
export function usePasskeys(): PasskeysState {
  const auth = useAuthClient();
  const userId = useUser()?.id ?? null;
  const key = ['auth', 'passkeys', userId];
  // Always fetched anew when shown: a sign-in elsewhere changes `last_used_at`.
  const list = useBackendQuery(key, () => auth.passkey.list(), {
    enabled: !!userId,
    staleTime: 0,
  });
  const [actionError, setActionError] = useState<unknown>(null);
  const change = useBackendMutation((run: () => PromiseLike<ResultLike<unknown>>) => run(), {
    invalidates: [key],
  });
  const { mutateAsync } = change;
  const act = useCallback(
    async (run: () => PromiseLike<ResultLike<unknown>>) => {
      setActionError(null);
      try {
        await mutateAsync(run);
        return true;
      } catch (error) {
        setActionError(error);
        return false;
      }
    },
    [mutateAsync],
  );
  return {
    passkeys: list.data,
    isPending: list.isPending,
    error: actionError ?? list.error,
    busy: change.isPending,
    add: useCallback(() => act(() => auth.registerPasskey()), [act, auth]),
    rename: useCallback(
      (passkeyId: string, friendlyName: string) =>
        act(() => auth.passkey.update({ passkeyId, friendlyName })),
      [act, auth],
    ),
    remove: useCallback(
      (passkeyId: string) => act(() => auth.passkey.delete({ passkeyId })),
      [act, auth],
    ),
  };
}

/** What {@link usePasskeySignIn} returns. */
export interface PasskeySignIn {
  /** True while the browser's prompt or the server's check runs. */
  pending: boolean;
  /** Why the last try failed (a cancelled prompt, an unknown passkey), or null. */
  error: unknown;
  /** Runs the ceremony; true once signed in (the session hooks follow). */
  signIn(options?: { captchaToken?: string; signal?: AbortSignal }): Promise<boolean>;
}

/**
 * "Sign in with a passkey": the browser lists the passkeys it holds for the site, the user
 * picks one, the session starts. No email needed.
 *
 * @example
 * const passkey = usePasskeySignIn();
 * <button disabled={passkey.pending} onClick={() => void passkey.signIn()}>Sign in with a passkey</button>
 */
export function usePasskeySignIn(): PasskeySignIn {
  const auth = useAuthClient();
  const [state, setState] = useState<{ pending: boolean; error: unknown }>({
    pending: false,
    error: null,
  });
  const signIn = useCallback(
    async (options?: { captchaToken?: string; signal?: AbortSignal }) => {
      setState({ pending: true, error: null });
      const { error } = await auth.signInWithPasskey(options ? { options } : undefined);
      setState({ pending: false, error: error ?? null });
      return !error;
    },
    [auth],
  );
  return { ...state, signIn };
}
