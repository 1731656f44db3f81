/**
 * Requests to external providers: the authorization URL, the code exchange (RFC 6749 §4.1.3)
 * and JSON APIs (userinfo, GitHub's `/user`), each with a time limit.
 */
import type { ProviderTokens } from './types';

/** How long one request to a provider may take (GoTrue's default internal timeout). */
const TIMEOUT_MS = 10_000;
const USER_AGENT = 'backend-server (GoTrue-compatible auth)';

/** A provider answered with an error status or something that is not what was asked. */
export class ProviderHttpError extends Error {
  constructor(
    message: string,
    readonly status = 0,
  ) {
    super(message);
  }
}

/** `key=value&…` in sorted key order, like Go's `url.Values.Encode`. */
export function encodeSorted(values: Record<string, string>): string {
  return new URLSearchParams(
    Object.entries(values).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  ).toString();
}

/**
 * The authorization URL as golang.org/x/oauth2 builds it: `response_type=code`, `client_id`,
 * `redirect_uri`, `scope` (space separated), `state`, then the extra parameters, sorted.
 */
export function authCodeUrl(
  endpoint: string,
  params: { clientId: string; redirectUri: string; scopes: string[]; state: string },
  extra: Record<string, string>,
): string {
  const values: Record<string, string> = {
    response_type: 'code',
    client_id: params.clientId,
    redirect_uri: params.redirectUri,
    ...(params.scopes.length ? { scope: params.scopes.join(' ') } : {}),
    state: params.state,
    ...extra,
  };
  return `${endpoint}${endpoint.includes('?') ? '&' : '?'}${encodeSorted(values)}`;
}

async function send(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, {
      ...init,
      signal: AbortSignal.timeout(TIMEOUT_MS),
      redirect: 'error',
    });
  } catch (error) {
    throw new ProviderHttpError(
      `request to ${new URL(url).origin} failed: ${(error as Error).message}`,
    );
  }
}

/** Reads a JSON or form-encoded body (GitHub answers the token request in either). */
async function readBody(res: Response): Promise<Record<string, unknown>> {
  const text = await res.text();
  const type = res.headers.get('content-type') ?? '';
  if (type.includes('application/x-www-form-urlencoded') || type.includes('text/plain')) {
    return Object.fromEntries(new URLSearchParams(text));
  }
  try {
    const value = JSON.parse(text) as unknown;
    if (value && typeof value === 'object') return value as Record<string, unknown>;
  } catch {}
  throw new ProviderHttpError(`unreadable answer (status ${res.status})`, res.status);
}

const form = (s: string) => encodeURIComponent(s).replace(/%20/g, '+');

/**
 * Exchanges an authorization code for tokens at the provider's token endpoint (client
 * authentication: HTTP Basic with the form-encoded id and secret, RFC 6749 §2.3.1).
 */
export async function exchangeCode(
  tokenUrl: string,
  params: {
    clientId: string;
    secret: string;
    code: string;
    redirectUri: string;
    codeVerifier?: string | undefined;
  },
): Promise<ProviderTokens> {
  const body = new URLSearchParams({
    grant_type: 'authorization_code',
    code: params.code,
    redirect_uri: params.redirectUri,
    ...(params.codeVerifier ? { code_verifier: params.codeVerifier } : {}),
  });
  const basic = Buffer.from(`${form(params.clientId)}:${form(params.secret)}`).toString('base64');
  const res = await send(tokenUrl, {
    method: 'POST',
    headers: {
      accept: 'application/json',
      authorization: `Basic ${basic}`,
      'content-type': 'application/x-www-form-urlencoded',
      'user-agent': USER_AGENT,
    },
    body,
  });
  const answer = await readBody(res);
  // GitHub reports a bad code with 200 and an `error` field.
  if (!res.ok || typeof answer.error === 'string') {
    throw new ProviderHttpError(
      `token endpoint answered ${res.status}: ${String(answer.error ?? '')} ${String(answer.error_description ?? '')}`.trim(),
      res.status,
    );
  }
  const accessToken = answer.access_token;
  if (typeof accessToken !== 'string' || accessToken === '') {
    throw new ProviderHttpError('token endpoint answered without an access_token', res.status);
  }
  return {
    accessToken,
    refreshToken: typeof answer.refresh_token === 'string' ? answer.refresh_token : '',
    idToken: typeof answer.id_token === 'string' && answer.id_token ? answer.id_token : null,
  };
}

/** GET of a JSON API with the user's access token (`Authorization: Bearer`). */
export async function getJson<T>(url: string, accessToken: string | null): Promise<T> {
  const res = await send(url, {
    headers: {
      accept: 'application/json',
      'user-agent': USER_AGENT,
      ...(accessToken ? { authorization: `Bearer ${accessToken}` } : {}),
    },
  });
  if (!res.ok) {
    throw new ProviderHttpError(
      `${new URL(url).pathname} answered ${res.status}: ${(await res.text()).slice(0, 200)}`,
      res.status,
    );
  }
  try {
    return (await res.json()) as T;
  } catch {
    throw new ProviderHttpError(`${new URL(url).pathname} answered with something other than JSON`);
  }
}
