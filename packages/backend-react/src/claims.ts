import { useEffect, useState } from 'react';
import { useAuth, useSession } from './auth';

/** What {@link useClaims} returns. */
export interface ClaimsState {
  /** True until the session is read and its token verified. */
  loading: boolean;
  /** The verified claims of the session's access token, or null when signed out or refused. */
  claims: Record<string, unknown> | null;
  /** Why the token was refused (an `AuthError`), or null. */
  error: unknown;
}

/** The auth capability as far as {@link useClaims} needs it (`getClaims`, as the SDK has it). */
export interface ClaimsAuthLike {
  getClaims(jwt?: string): PromiseLike<{
    data: { claims: Record<string, unknown> } | null;
    error: unknown;
  }>;
}

const LOADING: ClaimsState = { loading: true, claims: null, error: null };
const SIGNED_OUT: ClaimsState = { loading: false, claims: null, error: null };

/**
 * The verified claims of the signed-in user's access token (`auth.getClaims()`), checked
 * again whenever the token changes (sign-in, refresh, sign-out). With asymmetric signing keys
 * the check is local (the project's JWKS, cached); claims added by a custom access-token hook
 * are there too.
 *
 * @example
 * const { claims } = useClaims();
 * if (claims?.user_role === 'editor') return <Editor />;
 */
export function useClaims(): ClaimsState {
  const { loading, session } = useSession();
  const auth = useAuth<ClaimsAuthLike>();
  const token = session?.access_token ?? null;
  const [state, setState] = useState<{ token: string | null; value: ClaimsState }>({
    token: null,
    value: LOADING,
  });
  useEffect(() => {
    if (!token) return;
    let live = true;
    Promise.resolve(auth.getClaims(token)).then(
      ({ data, error }) => {
        if (live)
          setState({ token, value: { loading: false, claims: data?.claims ?? null, error } });
      },
      (error: unknown) => {
        if (live) setState({ token, value: { loading: false, claims: null, error } });
      },
    );
    return () => {
      live = false;
    };
  }, [auth, token]);
  if (loading) return LOADING;
  if (!token) return SIGNED_OUT;
  return state.token === token ? state.value : LOADING;
}
