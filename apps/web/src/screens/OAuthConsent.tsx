import { useOAuthConsent } from '@app/backend-react';
import { useEffect } from 'react';
import { useSearchParams } from 'react-router';
import { ErrorText } from '../components/ErrorText';
import { t } from '../i18n';
import type { MessageKey } from '../i18n/messages/en';
import { Loading } from '../Loading';
import { AuthCard } from './Auth';

/** What each scope lets the other app see, in the user's words. */
const SCOPES: Record<string, MessageKey> = {
  openid: 'oauth.scope.openid',
  email: 'oauth.scope.email',
  profile: 'oauth.scope.profile',
  phone: 'oauth.scope.phone',
  offline_access: 'oauth.scope.offline',
};

/**
 * The consent page of Drive's OAuth 2.1 server (`[auth.oauth_server] authorization_url_path`):
 * another app asks to sign in with the user's Drive account; the user allows or denies, and
 * the browser goes back to that app.
 */
export default function OAuthConsent() {
  const [params] = useSearchParams();
  const consent = useOAuthConsent(params.get('authorization_id'));
  const { redirectUrl } = consent;
  // Granted before: the server approved at once; back to the app. (After Allow or Deny the
  // auth client goes there itself.)
  const granted = consent.details ? null : redirectUrl;
  useEffect(() => {
    if (granted) window.location.assign(granted);
  }, [granted]);
  if (!params.get('authorization_id')) {
    return (
      <AuthCard title={t('oauth.nothing')}>
        <p>{t('oauth.noRequest')}</p>
      </AuthCard>
    );
  }
  if (consent.error && !consent.details) {
    return (
      <AuthCard title={t('oauth.invalid')}>
        <ErrorText error={consent.error} />
        <p>{t('oauth.startAgain')}</p>
      </AuthCard>
    );
  }
  if (!consent.details) return <Loading />;
  const { client, user, scope } = consent.details;
  return (
    <AuthCard
      title={client.name ? t('oauth.wants', { name: client.name }) : t('oauth.wantsUnnamed')}
    >
      {client.uri ? (
        <p>
          <a href={client.uri} rel="noreferrer" target="_blank">
            {client.uri}
          </a>
        </p>
      ) : null}
      <p>{t('oauth.signedInAs', { email: user.email })}</p>
      <ul aria-label={t('oauth.permissions')}>
        {scope.split(' ').map((s) => (
          <li key={s}>{SCOPES[s] ? t(SCOPES[s]) : s}</li>
        ))}
      </ul>
      <ErrorText error={consent.error} />
      <div className="dialog-actions">
        <button type="button" disabled={consent.busy} onClick={() => void consent.deny()}>
          {t('oauth.deny')}
        </button>
        <button
          type="button"
          className="primary"
          disabled={consent.busy}
          onClick={() => void consent.approve()}
        >
          {t('oauth.allow')}
        </button>
      </div>
    </AuthCard>
  );
}
