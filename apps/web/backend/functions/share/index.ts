/**
 * `share`: the only way an anonymous visitor reaches anything through a link. Every call
 * names the link (`token`) and, after `open`, the visitor's session in the `x-link-session`
 * header; the database checks every rule (`open_link`, `link_*`, called with the service role,
 * which visitors never hold) and this function only turns their answers into HTTP.
 *
 *   POST {action: "open", token, password?}  200 {kind, mode, item, session, expiresAt, …}
 *        (GET ?token=… is "open" without a password)
 *   POST {action: "list", token, folder?}    200 {folder, path, folders, files}
 *   POST {action: "preview", token, file?}   200 the file's bytes (Range honoured)
 *   POST {action: "download", token, file?}  200 {url, name} — counts a download
 *   POST {action: "zip", token, folder?}     200 {name, items: [{name, size, url?}]} — one download
 *   POST {action: "upload", token, name, size, type?, key?}  200 {key, path, signature}
 *   POST {action: "finish", token, key}      200 {size}
 *
 * Refusals: 400 invalid_request · 401 password_required | wrong_password | session ·
 * 403 view_only | upload_only | not_upload · 404 not_found | item_not_found ·
 * 410 expired | revoked | exhausted · 413 too_large | quota_exceeded · 429 rate_limited
 * (with Retry-After; wrong passwords count per visitor address, and per link). Written for
 * the hosted runtime; the local server runs it unchanged.
 */

import { http } from '../_shared/http.ts';
import { backend, type Result, refusal } from './backend.ts';

/** What the runtime says of the connection: the caller's address (the server resolves it). */
interface ServeInfo {
  remoteAddr?: { hostname?: string };
}

declare const Deno: {
  serve(handler: (req: Request, info?: ServeInfo) => Response | Promise<Response>): unknown;
  env: { get(name: string): string | undefined };
};

const SIGNED_URL_SECONDS = 300;
const ZIP_URL_SECONDS = 3600;
const TOKEN = /^[0-9a-f]{64}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const { cors, json } = http('GET, POST, OPTIONS', 'x-link-session, range');
const exposed = {
  'access-control-expose-headers': 'content-length, content-range, content-type, retry-after',
};

type Body = Record<string, unknown>;

async function readBody(req: Request): Promise<Body | null> {
  if (req.method === 'GET') {
    return { action: 'open', token: new URL(req.url).searchParams.get('token') };
  }
  try {
    const body = (await req.json()) as unknown;
    return body && typeof body === 'object' ? (body as Body) : null;
  } catch {
    return null;
  }
}

const str = (v: unknown) => (typeof v === 'string' ? v : null);
const id = (v: unknown) => (typeof v === 'string' && UUID.test(v) ? v : null);
const invalid = () => json(400, { error: 'invalid_request', message: 'This link is not valid.' });

function answer<T>(result: Result<T>, ok: (data: T) => Response | Promise<Response>) {
  if (!result.ok) {
    const { status, error, message } = result.failure;
    return json(status, { error, message });
  }
  return ok(result.data);
}

interface Opened {
  state: string;
  retry_after?: number;
  session?: string;
  session_expires_at?: string;
  kind?: 'file' | 'folder';
  mode?: string;
  expires_at?: string | null;
  item?: { id: string; name: string; size?: number; mime_type?: string };
  max_upload_bytes?: number | null;
  downloads_left?: number | null;
}

interface LinkFile {
  name: string;
  size: number;
  mime_type: string;
  object_path: string;
}

function opened(o: Opened): Response {
  if (o.state === 'password_required') {
    return json(401, { error: 'password_required', message: 'This link needs a password.' });
  }
  if (o.state === 'wrong_password') {
    return json(401, { error: 'wrong_password', message: 'That password is not right.' });
  }
  if (o.state === 'rate_limited') {
    const res = json(429, {
      error: 'rate_limited',
      message: 'Too many wrong passwords. Try again later.',
      retryAfter: o.retry_after,
    });
    res.headers.set('retry-after', String(o.retry_after ?? 60));
    return res;
  }
  if (o.state !== 'ok') {
    const { status, error, message } = refusal(o.state);
    return json(status, { error, message });
  }
  const item = o.item ?? { id: '', name: '' };
  return json(200, {
    kind: o.kind,
    mode: o.mode,
    session: o.session,
    sessionExpiresAt: o.session_expires_at,
    expiresAt: o.expires_at ?? null,
    id: item.id,
    name: item.name,
    ...(o.kind === 'file' ? { size: Number(item.size), mimeType: item.mime_type } : {}),
    maxUploadBytes: o.max_upload_bytes ?? null,
    downloadsLeft: o.downloads_left ?? null,
  });
}

Deno.serve(async (req, info) => {
  if (req.method === 'OPTIONS') return new Response('ok', { headers: { ...cors, ...exposed } });
  if (req.method !== 'GET' && req.method !== 'POST') {
    return json(405, { error: 'method_not_allowed', message: 'Use GET or POST.' });
  }
  const body = await readBody(req);
  const token = str(body?.token);
  if (!body || !token || !TOKEN.test(token)) return invalid();
  const url = Deno.env.get('SUPABASE_URL');
  const key = Deno.env.get('SUPABASE_SERVICE_ROLE_KEY');
  if (!url || !key)
    return json(500, { error: 'misconfigured', message: 'Sharing is unavailable.' });
  const api = backend(url, key);
  const session = req.headers.get('x-link-session');
  const link = { p_token: token, p_session: session };
  const action = str(body.action) ?? 'open';

  switch (action) {
    case 'open': {
      const password = body.password === undefined ? null : str(body.password);
      // Wrong passwords count per visitor address: the runtime's `remoteAddr`, which the server
      // resolves (X-Forwarded-For only from its trusted proxies), never a header read here.
      const o = await api.rpc<Opened>('open_link', {
        p_token: token,
        p_password: password,
        p_client: info?.remoteAddr?.hostname ?? null,
      });
      return answer(o, opened);
    }
    case 'list': {
      const folder = body.folder == null ? null : id(body.folder);
      if (body.folder != null && !folder) return invalid();
      return answer(await api.rpc('link_list', { ...link, p_folder_id: folder }), (data) =>
        json(200, data),
      );
    }
    case 'preview': {
      const file = body.file == null ? null : id(body.file);
      if (body.file != null && !file) return invalid();
      const f = await api.rpc<LinkFile>('link_file', {
        ...link,
        p_file_id: file,
        p_purpose: 'preview',
      });
      return answer(f, async (data) => {
        const stored = await api.object(data.object_path, req.headers.get('range'));
        if (!stored.ok && stored.status !== 416) {
          await stored.body?.cancel();
          return json(502, { error: 'unavailable', message: 'Sharing is unavailable.' });
        }
        const headers = new Headers({ ...cors, ...exposed });
        for (const h of ['content-length', 'content-range', 'accept-ranges']) {
          const v = stored.headers.get(h);
          if (v) headers.set(h, v);
        }
        headers.set('content-type', data.mime_type || 'application/octet-stream');
        headers.set('cache-control', 'private, no-store');
        headers.set('x-content-type-options', 'nosniff');
        headers.set('content-security-policy', "default-src 'none'; sandbox");
        return new Response(stored.body, { status: stored.status, headers });
      });
    }
    case 'download': {
      const file = body.file == null ? null : id(body.file);
      if (body.file != null && !file) return invalid();
      const f = await api.rpc<LinkFile>('link_file', {
        ...link,
        p_file_id: file,
        p_purpose: 'download',
      });
      if (!f.ok) return answer(f, () => json(200, {}));
      const signed = await api.signed(f.data.object_path, SIGNED_URL_SECONDS, f.data.name);
      return answer(signed, (u) => json(200, { url: u, name: f.data.name }));
    }
    case 'zip': {
      const folder = body.folder == null ? null : id(body.folder);
      if (body.folder != null && !folder) return invalid();
      const listed = await api.rpc<
        {
          kind: string;
          path: string;
          size: number;
          object_path: string | null;
          updated_at: string;
        }[]
      >('link_zip', { ...link, p_folder_id: folder });
      if (!listed.ok) return answer(listed, () => json(200, {}));
      const paths = listed.data.flatMap((e) => (e.object_path ? [e.object_path] : []));
      const urls = await api.signedMany(paths, ZIP_URL_SECONDS);
      return answer(urls, (byPath) => {
        const items = listed.data.map((e) => ({
          name: e.path,
          lastModified: e.updated_at,
          size: Number(e.size),
          ...(e.object_path ? { url: byPath.get(e.object_path) ?? '' } : {}),
        }));
        const root = (listed.data[0]?.path ?? 'folder/').replace(/\/$/, '');
        return json(200, { name: `${root}.zip`, items });
      });
    }
    case 'upload': {
      const name = str(body.name);
      const size =
        typeof body.size === 'number' && Number.isSafeInteger(body.size) ? body.size : -1;
      if (!name || size < 0) return invalid();
      const begun = await api.rpc<{ upload_key: string; object_path: string }>(
        'link_begin_upload',
        {
          ...link,
          p_name: name,
          p_size: size,
          p_mime_type: str(body.type) ?? 'application/octet-stream',
          p_upload_key: str(body.key),
        },
      );
      if (!begun.ok) return answer(begun, () => json(200, {}));
      const signature = await api.uploadToken(begun.data.object_path);
      return answer(signature, (s) =>
        json(200, { key: begun.data.upload_key, path: begun.data.object_path, signature: s }),
      );
    }
    case 'finish': {
      const upload = str(body.key);
      if (!upload) return invalid();
      return answer(
        await api.rpc('link_finish_upload', { ...link, p_upload_key: upload }),
        (data) => json(200, data),
      );
    }
    default:
      return invalid();
  }
});
