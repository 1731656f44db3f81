/**
 * `share`: the only way an anonymous visitor reaches a file. Given a share token, it
 * resolves the share with the service role (`resolve_share` is not callable by visitors)
 * and answers with the file's name, size and type plus a short-lived signed download URL.
 *
 *   POST /functions/v1/share  {"token": "…"}   (or GET /functions/v1/share?token=…)
 *   200 {name, size, mimeType, expiresAt, url}
 *   404 {error: "not_found"} · 410 {error: "expired" | "revoked"} · 400 {error: "invalid_request"}
 *
 * Written for the hosted runtime (`Deno.serve`, `Deno.env`); the local server runs it unchanged.
 */

import { http } from '../_shared/http.ts';

declare const Deno: {
  serve(handler: (req: Request) => Response | Promise<Response>): unknown;
  env: { get(name: string): string | undefined };
};

const SIGNED_URL_SECONDS = 300;
const TOKEN = /^[0-9a-f]{64}$/;

const { cors, json } = http('GET, POST, OPTIONS');

async function readToken(req: Request): Promise<string | null> {
  const fromQuery = new URL(req.url).searchParams.get('token');
  if (req.method === 'GET') return fromQuery;
  try {
    const body = (await req.json()) as { token?: unknown };
    return typeof body.token === 'string' ? body.token : null;
  } catch {
    return null;
  }
}

interface ResolvedShare {
  state: 'ok' | 'not_found' | 'expired' | 'revoked';
  name: string | null;
  size: number | string | null;
  mime_type: string | null;
  object_path: string | null;
  expires_at: string | null;
}

Deno.serve(async (req) => {
  if (req.method === 'OPTIONS') return new Response('ok', { headers: cors });
  if (req.method !== 'GET' && req.method !== 'POST') {
    return json(405, { error: 'method_not_allowed', message: 'Use GET or POST.' });
  }
  const token = await readToken(req);
  if (!token || !TOKEN.test(token)) {
    return json(400, { error: 'invalid_request', message: 'This link is not valid.' });
  }
  const url = Deno.env.get('SUPABASE_URL');
  const key = Deno.env.get('SUPABASE_SERVICE_ROLE_KEY');
  if (!url || !key)
    return json(500, { error: 'misconfigured', message: 'Sharing is unavailable.' });
  const service = {
    apikey: key,
    authorization: `Bearer ${key}`,
    'content-type': 'application/json',
  };

  const resolved = await fetch(`${url}/rest/v1/rpc/resolve_share`, {
    method: 'POST',
    headers: { ...service, accept: 'application/vnd.pgrst.object+json' },
    body: JSON.stringify({ share_token: token }),
  });
  if (!resolved.ok) return json(502, { error: 'unavailable', message: 'Sharing is unavailable.' });
  const share = (await resolved.json()) as ResolvedShare;
  if (share.state === 'not_found') {
    return json(404, { error: 'not_found', message: 'This link does not exist.' });
  }
  if (share.state === 'expired') {
    return json(410, { error: 'expired', message: 'This link has expired.' });
  }
  if (share.state === 'revoked') {
    return json(410, { error: 'revoked', message: 'This link has been revoked.' });
  }

  const path = (share.object_path ?? '').split('/').map(encodeURIComponent).join('/');
  const signed = await fetch(`${url}/storage/v1/object/sign/files/${path}`, {
    method: 'POST',
    headers: service,
    body: JSON.stringify({ expiresIn: SIGNED_URL_SECONDS }),
  });
  if (!signed.ok) return json(502, { error: 'unavailable', message: 'Sharing is unavailable.' });
  const { signedURL } = (await signed.json()) as { signedURL: string };
  const download = `${url}/storage/v1${signedURL}&download=${encodeURIComponent(share.name ?? '')}`;
  return json(200, {
    name: share.name,
    size: Number(share.size),
    mimeType: share.mime_type,
    expiresAt: share.expires_at,
    url: download,
  });
});
