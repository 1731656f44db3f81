import type { UseMutationResult, UseQueryResult } from '@tanstack/react-query';
import { useSession } from './auth';
import { useBackendMutation, useBackendQuery } from './query';
import type { ResultLike } from './types';

/** An identity linked to the user, as `auth.getUserIdentities()` returns it. */
export interface IdentityLike {
  /** The identity's own id (what `unlinkIdentity` takes). */
  identity_id: string;
  /** The user's id at the provider. */
  id: string;
  provider: string;
  identity_data?: Record<string, unknown> | undefined;
  email?: string | undefined;
  created_at?: string | undefined;
  last_sign_in_at?: string | undefined;
  [key: string]: unknown;
}

/** Options of an OAuth redirect, as `signInWithOAuth` and `linkIdentity` take them. */
export interface OAuthRedirectOptions {
  redirectTo?: string;
  scopes?: string;
  queryParams?: Record<string, string>;
  skipBrowserRedirect?: boolean;
}

/** The auth capability, as far as the identity hooks need it. */
export interface IdentitiesAuthLike {
  getUserIdentities(): PromiseLike<ResultLike<{ identities: IdentityLike[] }>>;
  linkIdentity(credentials: {
    provider: string;
    options?: OAuthRedirectOptions;
  }): PromiseLike<ResultLike<{ provider: string | null; url: string | null }>>;
  unlinkIdentity(identity: IdentityLike): PromiseLike<ResultLike<unknown>>;
}

/** The auth capability, as far as {@link useAuthProviders} needs it. */
export interface SettingsAuthLike {
  http: {
    url: string;
    send(request: {
      path: string;
      headers?: Record<string, string>;
      token?: string | null;
      error: (message: string, options: { status?: number }) => Error;
    }): Promise<Response>;
  };
}

type AuthClientLike<T> = { auth: T };

/** What {@link useIdentities} returns. */
export interface IdentitiesState {
  /** The user's identities (undefined while loading or signed out). */
  identities: IdentityLike[] | undefined;
  query: UseQueryResult<{ identities: IdentityLike[] }>;
  /**
   * Links a provider's identity: goes to the provider (the page leaves, unless
   * `skipBrowserRedirect`), which comes back to `redirectTo` signed in with the identity
   * added. Resolves the provider's URL; rejects when it cannot start (e.g. manual linking is
   * off).
   */
  link(provider: string, options?: OAuthRedirectOptions): Promise<string | null>;
  /** Unlinks an identity; the list refreshes. Its `error` says why it could not be. */
  unlink: UseMutationResult<unknown, Error, IdentityLike>;
}

/**
 * The signed-in user's linked sign-in methods (`auth.getUserIdentities()`), with link and
 * unlink. The list is cached per user and refreshed after an unlink.
 *
 * @example
 * const { identities, link, unlink } = useIdentities();
 * <button onClick={() => link('github', { redirectTo: location.href })}>Link GitHub</button>
 * {identities?.map((i) => <button onClick={() => unlink.mutate(i)}>Unlink {i.provider}</button>)}
 * {unlink.error && <p role="alert">{errorMessage(unlink.error)}</p>}
 */
export function useIdentities(): IdentitiesState {
  const { session } = useSession();
  const userId = session?.user.id ?? null;
  // A new session (a sign-in, a link coming back, a refresh) reads the list again.
  const key = ['auth', 'identities', userId, session?.access_token ?? null];
  const query = useBackendQuery(
    key,
    (client: AuthClientLike<IdentitiesAuthLike>) => client.auth.getUserIdentities(),
    { enabled: userId !== null },
  );
  const linker = useBackendMutation(
    (
      v: { provider: string; options?: OAuthRedirectOptions },
      client: AuthClientLike<IdentitiesAuthLike>,
    ) =>
      client.auth.linkIdentity(
        v.options ? { provider: v.provider, options: v.options } : { provider: v.provider },
      ),
  );
  const unlink = useBackendMutation(
    (identity: IdentityLike, client: AuthClientLike<IdentitiesAuthLike>) =>
      client.auth.unlinkIdentity(identity),
    { invalidates: [['auth', 'identities', userId]] },
  );
  return {
    identities: userId ? query.data?.identities : undefined,
    query,
    link: async (provider, options) =>
      (await linker.mutateAsync(options ? { provider, options } : { provider })).url,
    unlink,
  };
}

/** The sign-in methods a project offers, from its auth settings (`GET /auth/v1/settings`). */
export interface AuthProviders {
  /** External providers that are on (`github`, `google`, …), in the server's order. */
  external: string[];
  email: boolean;
  phone: boolean;
  anonymous: boolean;
  signupDisabled: boolean;
}

const NOT_PROVIDERS = new Set(['email', 'phone', 'anonymous_users']);

/**
 * The providers the project has turned on (its public auth settings), to show one "Continue
 * with …" button per provider. Cached for the session of the page.
 *
 * @example
 * const providers = useAuthProviders();
 * providers.data?.external.map((p) => <button onClick={() => auth.signInWithOAuth({ provider: p })}>Continue with {p}</button>)
 */
export function useAuthProviders(): UseQueryResult<AuthProviders> {
  return useBackendQuery(
    ['auth', 'settings'],
    async (client: AuthClientLike<SettingsAuthLike>) => {
      try {
        const res = await client.auth.http.send({
          path: '/auth/v1/settings',
          token: null,
          error: (message, options) => Object.assign(new Error(message), options),
        });
        if (!res.ok)
          throw Object.assign(new Error(`settings answered ${res.status}`), { status: res.status });
        const s = (await res.json()) as {
          external?: Record<string, boolean>;
          disable_signup?: boolean;
        };
        const external = s.external ?? {};
        return {
          data: {
            external: Object.keys(external).filter(
              (k) => external[k] === true && !NOT_PROVIDERS.has(k),
            ),
            email: external.email === true,
            phone: external.phone === true,
            anonymous: external.anonymous_users === true,
            signupDisabled: s.disable_signup === true,
          },
          error: null,
        };
      } catch (error) {
        return { data: null, error };
      }
    },
    { staleTime: Number.POSITIVE_INFINITY },
  );
}
