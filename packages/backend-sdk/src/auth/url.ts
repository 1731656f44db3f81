/**
 * Sign-in redirects: what the auth server appends to the app's URL when someone follows an
 * email link (magic link, sign-up confirmation, password recovery, email change) or comes
 * back from OAuth.
 */

/** A redirect that carries a sign-in. */
export type AuthRedirect =
  /** Implicit flow: the session's tokens in the fragment. */
  | { kind: 'tokens'; params: URLSearchParams; type: string | null; clean: string }
  /** PKCE flow: a code in the query, to exchange with the stored verifier. */
  | { kind: 'code'; code: string; clean: string };

/**
 * Reads a sign-in redirect from `href`; null when it carries none (errors in the fragment
 * are left to the app). `clean` is `href` without the sign-in parameters.
 *
 * @example
 * readAuthRedirect('https://app.example/#access_token=…&refresh_token=…&type=recovery')
 * // { kind: 'tokens', type: 'recovery', clean: 'https://app.example/', … }
 */
export function readAuthRedirect(href: string): AuthRedirect | null {
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return null;
  }
  const params = new URLSearchParams(url.hash.slice(1));
  if (params.get('access_token') && params.get('refresh_token')) {
    url.hash = '';
    return { kind: 'tokens', params, type: params.get('type'), clean: url.href.replace(/#$/, '') };
  }
  const code = url.searchParams.get('code');
  if (code) {
    url.searchParams.delete('code');
    return { kind: 'code', code, clean: url.href };
  }
  return null;
}
