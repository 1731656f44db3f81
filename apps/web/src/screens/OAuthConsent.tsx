import { useOAuthConsent } from '@app/backend-react';
import { useEffect } from 'react';
import { useSearchParams } from 'react-router';
import { ErrorText } from '../components/ErrorText';
import { Loading } from '../Loading';
import { AuthCard } from './Auth';

/** What each scope lets the other app see, in the user's words. */
const SCOPES: Record<string, string> = {
  openid: 'Know who you are on Drive',
  email: 'See your email address',
  profile: 'See your name and picture',
  phone: 'See your phone number',
  offline_access: 'Stay signed in when you are away',
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
      <AuthCard title="Nothing to approve">
        <p>This link has no authorization request. Start again from the app.</p>
      </AuthCard>
    );
  }
  if (consent.error && !consent.details) {
    return (
      <AuthCard title="This request is no longer valid">
        <ErrorText error={consent.error} />
        <p>Start again from the app that sent you here.</p>
      </AuthCard>
    );
  }
  if (!consent.details) return <Loading />;
  const { client, user, scope } = consent.details;
  const name = client.name || 'An app';
  return (
    <AuthCard title={`${name} wants to use your Drive account`}>
      {client.uri ? (
        <p>
          <a href={client.uri} rel="noreferrer" target="_blank">
            {client.uri}
          </a>
        </p>
      ) : null}
      <p>Signed in as {user.email}. It will be able to:</p>
      <ul aria-label="Permissions">
        {scope.split(' ').map((s) => (
          <li key={s}>{SCOPES[s] ?? s}</li>
        ))}
      </ul>
      <ErrorText error={consent.error} />
      <div className="dialog-actions">
        <button type="button" disabled={consent.busy} onClick={() => void consent.deny()}>
          Deny
        </button>
        <button
          type="button"
          className="primary"
          disabled={consent.busy}
          onClick={() => void consent.approve()}
        >
          Allow
        </button>
      </div>
    </AuthCard>
  );
}
