/**
 * `search-index`: extracts the text of files for search (see
 * ../../migrations/20261128001000_search_index.sql). The database queues every file that
 * becomes ready; this claims due ones, reads each stored object and saves its text.
 *
 *   POST /functions/v1/search-index {}   signed in: files the caller uploaded or owns (Drive
 *                                        calls it after each upload, without waiting)
 *                                        with the service-role key: everyone's (the sweep)
 *   200 {"indexed": n, "failed": n}
 *   401 {error: "unauthorized"} · 500 {error: "misconfigured"} · 502 {error: "unavailable"}
 *
 * Who the caller is comes from the auth server (`/auth/v1/user` with the caller's token); the
 * rows are claimed with the service role (`claim_file_texts`, each due row once even when
 * calls run at the same time) and the text saved with `save_file_text`. The answer is counts:
 * no caller reads anything through it.
 *
 * Written for the hosted runtime (`Deno.serve`, `Deno.env`, `fetch`); the local server runs it
 * unchanged.
 */

import { http, Upstream } from '../_shared/http.ts';
import { extractionOf, extractText } from './extract.ts';

declare const Deno: {
  serve(handler: (req: Request) => Response | Promise<Response>): unknown;
  env: { get(name: string): string | undefined };
};

const BATCH = 5;
/** At most this many batches per call (the sweep): the rest go on the next call. */
const ROUNDS = 20;

const { cors, json } = http('POST, OPTIONS');

interface Settings {
  url: string;
  serviceKey: string;
}

interface Job {
  file_id: string;
  object_path: string;
  name: string;
  mime_type: string | null;
  size: number;
}

async function callerId(s: Settings, req: Request, authorization: string): Promise<string | null> {
  const apikey = req.headers.get('apikey') ?? Deno.env.get('SUPABASE_ANON_KEY') ?? s.serviceKey;
  const res = await fetch(`${s.url}/auth/v1/user`, { headers: { apikey, authorization } });
  if (res.status === 401 || res.status === 403) {
    await res.body?.cancel();
    return null;
  }
  if (!res.ok) throw new Upstream(res.status);
  const user = (await res.json()) as { id?: unknown };
  return typeof user.id === 'string' ? user.id : null;
}

function service(s: Settings): Record<string, string> {
  return { apikey: s.serviceKey, authorization: `Bearer ${s.serviceKey}` };
}

async function rpc<T>(s: Settings, name: string, args: unknown): Promise<T> {
  const res = await fetch(`${s.url}/rest/v1/rpc/${name}`, {
    method: 'POST',
    headers: { ...service(s), 'content-type': 'application/json' },
    body: JSON.stringify(args),
  });
  if (!res.ok) throw new Upstream(res.status);
  return (await res.json()) as T;
}

/** The text of one claimed file, or why there is none. */
async function textOf(s: Settings, job: Job): Promise<{ text: string; error: string | null }> {
  const kind = extractionOf(job.name, job.mime_type);
  if (!kind) return { text: '', error: null };
  const path = job.object_path.split('/').map(encodeURIComponent).join('/');
  const res = await fetch(`${s.url}/storage/v1/object/files/${path}`, { headers: service(s) });
  if (res.status === 400 || res.status === 404) {
    await res.body?.cancel();
    return { text: '', error: 'The stored object is gone' };
  }
  if (!res.ok) throw new Upstream(res.status);
  const bytes = new Uint8Array(await res.arrayBuffer());
  try {
    return { text: await extractText(bytes, kind), error: null };
  } catch (error) {
    return {
      text: '',
      error: `Unreadable ${kind}: ${error instanceof Error ? error.message : error}`,
    };
  }
}

Deno.serve(async (req) => {
  if (req.method === 'OPTIONS') return new Response('ok', { headers: cors });
  if (req.method !== 'POST') {
    return json(405, { error: 'method_not_allowed', message: 'Use POST.' });
  }
  const authorization = req.headers.get('authorization');
  if (!authorization?.startsWith('Bearer ')) {
    return json(401, { error: 'unauthorized', message: 'Sign in to index files.' });
  }
  const url = Deno.env.get('SUPABASE_URL');
  const serviceKey = Deno.env.get('SUPABASE_SERVICE_ROLE_KEY');
  if (!url || !serviceKey) {
    return json(500, { error: 'misconfigured', message: 'Search indexing is unavailable.' });
  }
  const s: Settings = { url, serviceKey };
  await req.body?.cancel();

  try {
    const token = authorization.slice('Bearer '.length);
    const sweep = token === s.serviceKey;
    const user = sweep ? null : await callerId(s, req, authorization);
    if (!sweep && !user) {
      return json(401, { error: 'unauthorized', message: 'Sign in to index files.' });
    }
    let indexed = 0;
    let failed = 0;
    for (let round = 0; round < (sweep ? ROUNDS : 4); round += 1) {
      const jobs = await rpc<Job[]>(s, 'claim_file_texts', { p_user: user, p_limit: BATCH });
      for (const job of jobs) {
        const { text, error } = await textOf(s, job);
        await rpc(s, 'save_file_text', {
          p_file: job.file_id,
          p_object_path: job.object_path,
          p_body: text,
          p_error: error,
        });
        if (error === null) indexed += 1;
        else {
          failed += 1;
          console.error(`search-index: file ${job.file_id}: ${error}`);
        }
      }
      if (jobs.length < BATCH) break;
    }
    return json(200, { indexed, failed });
  } catch (error) {
    console.error('search-index:', error instanceof Error ? error.message : error);
    return json(502, { error: 'unavailable', message: 'Files could not be indexed. Try again.' });
  }
});
