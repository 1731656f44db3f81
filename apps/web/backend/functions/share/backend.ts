/**
 * The `share` function's calls to the backend, all with the service role: the link rpcs
 * (which check every rule of a link, see migrations/*_links*.sql) and the storage API
 * (signed URLs, the object's bytes, signed upload tokens). Refusals come back as the hint the
 * database raised, turned here into the function's answer.
 */

export interface Failure {
  status: number;
  error: string;
  message: string;
}

const REFUSALS: Record<string, Failure> = {
  link_not_found: { status: 404, error: 'not_found', message: 'This link does not exist.' },
  link_expired: { status: 410, error: 'expired', message: 'This link has expired.' },
  link_revoked: { status: 410, error: 'revoked', message: 'This link has been revoked.' },
  link_exhausted: {
    status: 410,
    error: 'exhausted',
    message: 'This link has reached its download limit.',
  },
  link_session: { status: 401, error: 'session', message: 'Open the link again.' },
  link_view_only: { status: 403, error: 'view_only', message: 'This link is for viewing only.' },
  link_upload_only: {
    status: 403,
    error: 'upload_only',
    message: 'This link only accepts uploads.',
  },
  link_not_upload: {
    status: 403,
    error: 'not_upload',
    message: 'This link does not accept uploads.',
  },
  link_item_not_found: {
    status: 404,
    error: 'item_not_found',
    message: 'This item is not in the link.',
  },
  link_too_large: {
    status: 413,
    error: 'too_large',
    message: 'This file is larger than the link accepts.',
  },
  quota_exceeded: {
    status: 413,
    error: 'quota_exceeded',
    message: 'The owner’s storage is full.',
  },
  invalid_name: { status: 400, error: 'invalid_name', message: 'This name cannot be used.' },
  upload_incomplete: {
    status: 409,
    error: 'upload_incomplete',
    message: 'The upload of this file has not finished.',
  },
  invalid_request: { status: 400, error: 'invalid_request', message: 'This request is not valid.' },
};

/** The answer for a link's state or a database hint (`not_found` → `link_not_found`). */
export function refusal(hint: string): Failure {
  return (
    REFUSALS[hint] ??
    REFUSALS[`link_${hint}`] ?? {
      status: 502,
      error: 'unavailable',
      message: 'Sharing is unavailable.',
    }
  );
}

export type Result<T> = { ok: true; data: T } | { ok: false; failure: Failure };

/** The service-role calls of one request. */
export function backend(url: string, key: string) {
  const headers = { apikey: key, authorization: `Bearer ${key}` };
  const json = { ...headers, 'content-type': 'application/json' };
  const objectPath = (path: string) => path.split('/').map(encodeURIComponent).join('/');
  const unavailable = (): Result<never> => ({ ok: false, failure: refusal('') });

  return {
    /** Calls a link rpc; a refusal becomes its answer. */
    async rpc<T>(name: string, args: Record<string, unknown>): Promise<Result<T>> {
      const res = await fetch(`${url}/rest/v1/rpc/${name}`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify(args),
      });
      const body = (await res.json().catch(() => null)) as { hint?: string } | null;
      if (res.ok) return { ok: true, data: body as T };
      return { ok: false, failure: refusal(body?.hint ?? '') };
    },

    /** A signed URL (`seconds`) of a stored object; with `download`, saved under that name. */
    async signed(path: string, seconds: number, download?: string): Promise<Result<string>> {
      const res = await fetch(`${url}/storage/v1/object/sign/files/${objectPath(path)}`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ expiresIn: seconds }),
      });
      if (!res.ok) return unavailable();
      const { signedURL } = (await res.json()) as { signedURL: string };
      const name = download === undefined ? '' : `&download=${encodeURIComponent(download)}`;
      return { ok: true, data: `${url}/storage/v1${signedURL}${name}` };
    },

    /** Signed URLs of many objects, by path. */
    async signedMany(paths: string[], seconds: number): Promise<Result<Map<string, string>>> {
      const urls = new Map<string, string>();
      for (let i = 0; i < paths.length; i += 500) {
        const res = await fetch(`${url}/storage/v1/object/sign/files`, {
          method: 'POST',
          headers: json,
          body: JSON.stringify({ expiresIn: seconds, paths: paths.slice(i, i + 500) }),
        });
        if (!res.ok) return unavailable();
        const signed = (await res.json()) as { path: string; signedURL: string | null }[];
        for (const s of signed)
          if (s.signedURL) urls.set(s.path, `${url}/storage/v1${s.signedURL}`);
      }
      return { ok: true, data: urls };
    },

    /** The object's bytes (a range of them when asked), straight from storage. */
    object(path: string, range: string | null): Promise<Response> {
      return fetch(`${url}/storage/v1/object/authenticated/files/${objectPath(path)}`, {
        headers: range ? { ...headers, range } : headers,
      });
    },

    /** A token that lets its holder upload this one path (tus: `x-signature`). */
    async uploadToken(path: string): Promise<Result<string>> {
      const res = await fetch(`${url}/storage/v1/object/upload/sign/files/${objectPath(path)}`, {
        method: 'POST',
        headers: json,
        body: '{}',
      });
      if (!res.ok) return unavailable();
      const { url: signed } = (await res.json()) as { url: string };
      const token = new URL(signed, url).searchParams.get('token');
      return token ? { ok: true, data: token } : unavailable();
    },
  };
}
