import { type IdentityLike, useAuth, useAuthProviders, useIdentities } from '@app/backend-react';
import { useEffect, useState } from 'react';
import { ErrorText } from '../components/ErrorText';
import { t } from '../i18n';
import { rich } from '../i18n/rich';
import type { AuthApi } from '../lib/client-types';
import { providerName, readProviderError } from '../lib/providers';

/**
 * The error a provider's sign-in (or link) brought back to this page, read once; the error
 * is then taken out of the address bar, so a reload does not show it again.
 */
function useReturnedError(): unknown {
  const [error] = useState(() => readProviderError(window.location));
  useEffect(() => {
    if (error) window.history.replaceState(window.history.state, '', window.location.pathname);
  }, [error]);
  return error;
}

/**
 * "Continue with …" for each provider the backend has turned on (on sign-in and sign-up).
 * The page goes to the provider, which comes back to /sign-in: signed in (the SDK takes the
 * session from the address bar), or with an error shown here.
 */
export function ProviderButtons() {
  const auth = useAuth<AuthApi>();
  const providers = useAuthProviders();
  const returned = useReturnedError();
  const [going, setGoing] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const list = providers.data?.external ?? [];
  const start = async (provider: string) => {
    setGoing(provider);
    setError(null);
    const { error: failed } = await auth.signInWithOAuth({
      provider,
      options: { redirectTo: `${window.location.origin}/sign-in` },
    });
    if (failed) {
      setError(failed);
      setGoing(null);
    }
  };
  if (list.length === 0 && !returned) return null;
  return (
    <div className="providers">
      <ErrorText error={error ?? returned} />
      {list.length > 0 ? (
        <>
          <p className="divider">
            <span>{t('methods.or')}</span>
          </p>
          <ul>
            {list.map((p) => (
              <li key={p}>
                <button
                  type="button"
                  className="provider"
                  data-provider={p}
                  disabled={going !== null}
                  onClick={() => void start(p)}
                >
                  {going === p
                    ? t('methods.opening', { provider: providerName(p) })
                    : t('methods.continueWith', { provider: providerName(p) })}
                </button>
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </div>
  );
}

const methodName = (identity: IdentityLike) =>
  identity.provider === 'email'
    ? t('methods.emailPassword')
    : identity.provider === 'phone'
      ? t('methods.phone')
      : providerName(identity.provider);

/**
 * Settings › Sign-in methods: the ways this account signs in (email and password, GitHub,
 * …), linking another provider's account and unlinking one. The last method cannot go; the
 * backend refuses and the sentence says why.
 */
export function SignInMethods() {
  const { identities, query, link, unlink } = useIdentities();
  const providers = useAuthProviders();
  const returned = useReturnedError();
  const [linking, setLinking] = useState<string | null>(null);
  const [linkError, setLinkError] = useState<unknown>(null);
  const linked = new Set((identities ?? []).map((i) => i.provider));
  const available = (providers.data?.external ?? []).filter((p) => !linked.has(p));
  const startLink = async (provider: string) => {
    setLinking(provider);
    setLinkError(null);
    unlink.reset();
    try {
      await link(provider, { redirectTo: `${window.location.origin}/settings` });
    } catch (e) {
      setLinkError(e);
      setLinking(null);
    }
  };
  return (
    <>
      <p>{t('methods.intro')}</p>
      <ErrorText error={query.error} />
      {identities ? (
        <ul className="methods">
          {identities.map((identity) => {
            const name = methodName(identity);
            return (
              <li key={identity.identity_id} data-provider={identity.provider}>
                <span className="method">
                  <strong>{name}</strong>
                  {identity.email ? <span className="muted"> {identity.email}</span> : null}
                </span>
                <button
                  type="button"
                  disabled={unlink.isPending}
                  onClick={() => {
                    setLinkError(null);
                    unlink.mutate(identity);
                  }}
                >
                  {rich(t('methods.unlink', { name }), [
                    (s) => <span className="sr-only">{s}</span>,
                  ])}
                </button>
              </li>
            );
          })}
        </ul>
      ) : (
        <p role="status">{t('settings.loading')}</p>
      )}
      <ErrorText error={unlink.error ?? linkError ?? returned} />
      {available.length > 0 ? (
        <div className="row-buttons">
          {available.map((p) => (
            <button
              key={p}
              type="button"
              disabled={linking !== null}
              onClick={() => void startLink(p)}
            >
              {linking === p
                ? t('methods.opening', { provider: providerName(p) })
                : t('methods.link', { provider: providerName(p) })}
            </button>
          ))}
        </div>
      ) : null}
    </>
  );
}
