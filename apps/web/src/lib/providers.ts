/**
 * Sign-in providers (GitHub, Google, …): their names as people know them, and the error a
 * provider's sign-in brings back to the page it returns to (`?error=…&error_code=…` and the
 * same in the fragment, as the backend reports a refusal).
 */

const NAMES: Record<string, string> = {
  apple: 'Apple',
  azure: 'Microsoft',
  bitbucket: 'Bitbucket',
  discord: 'Discord',
  facebook: 'Facebook',
  github: 'GitHub',
  gitlab: 'GitLab',
  google: 'Google',
  keycloak: 'Keycloak',
  linkedin_oidc: 'LinkedIn',
  notion: 'Notion',
  slack_oidc: 'Slack',
  spotify: 'Spotify',
  twitch: 'Twitch',
  twitter: 'X',
  x: 'X',
  zoom: 'Zoom',
};

/**
 * A provider's name for people.
 *
 * @example
 * providerName('github') // 'GitHub'
 * providerName('custom:acme') // 'Acme'
 */
export function providerName(provider: string): string {
  const known = NAMES[provider];
  if (known) return known;
  const bare = provider.replace(/^custom:/, '').replace(/[_-]+/g, ' ');
  return bare.charAt(0).toUpperCase() + bare.slice(1);
}

/** How a sign-in with a provider failed, as the backend's redirect says. */
export interface ProviderRedirectError {
  /** `error_code` when given (e.g. `provider_email_needs_verification`), else the OAuth `error`. */
  code: string;
  message: string;
}

/**
 * The error of a provider redirect in `location` (the fragment first, then the query); null
 * when the page was not reached through a failed sign-in.
 *
 * @example
 * readProviderError({ search: '', hash: '#error=access_denied&error_description=No&sb=' })
 * // { code: 'access_denied', message: 'No' }
 */
export function readProviderError(location: {
  search: string;
  hash: string;
}): ProviderRedirectError | null {
  for (const part of [location.hash.replace(/^#/, ''), location.search.replace(/^\?/, '')]) {
    const params = new URLSearchParams(part);
    const error = params.get('error');
    if (!error) continue;
    return {
      code: params.get('error_code') || error,
      message: params.get('error_description') ?? '',
    };
  }
  return null;
}
