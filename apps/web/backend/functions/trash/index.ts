/**
 * `trash`: deletes Trash entries forever — the stored objects through the storage API, then
 * the rows — which frees the quota. One place for the three ways things leave the Trash:
 *
 *   POST /functions/v1/trash {"action": "delete", "files": [id…], "folders": [id…]}
 *   POST /functions/v1/trash {"action": "empty"}   every entry of the caller's Trash
 *   POST /functions/v1/trash {"action": "purge"}   entries deleted more than 30 days ago, and
 *                                                  versions past their owner's retention
 *   POST /functions/v1/trash {"action": "version", "version": id}   one older version of a file
 *   200 {"deleted": <entries>, "objects": <stored objects removed>, "versions": <versions deleted>}
 *   400 {error: "invalid_request"} · 401 {error: "unauthorized"} · 502 {error: "unavailable"}
 *
 * It acts with the caller's own token, so row level security decides what it can see and
 * delete: a signed-in user reaches only their own Trash; a scheduler calling with the service
 * role key purges everyone's expired entries (see apps/web/README.md, "Trash").
 *
 * Three steps (see migrations/20261127000100_delete_forever.sql): the entries are marked first
 * (from then on nothing can restore them, move into them or store an object for them, so a
 * restore, move or upload on another device at the same time orphans nothing), then their
 * objects are removed, then the rows. If anything fails half-way, the entries stay marked in
 * the Trash and the next call finishes the job (removing an object already gone is fine).
 * Items deleted by themselves before their folder are entries of their own: deleting the
 * folder forever leaves them in the Trash.
 *
 * Written for the hosted runtime (`Deno.serve`, `Deno.env`, `fetch`); the local server runs it
 * unchanged.
 */

import { http, Upstream } from '../_shared/http.ts';

declare const Deno: {
  serve(handler: (req: Request) => Response | Promise<Response>): unknown;
  env: { get(name: string): string | undefined };
};

const RETENTION = '30 days';
const REMOVE_BATCH = 1000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_IDS = 50_000;

const { cors, json } = http('POST, OPTIONS');

type Request_ =
  | { action: 'delete'; files: string[]; folders: string[] }
  | { action: 'version'; version: string }
  | { action: 'empty' | 'purge' };

const ids = (v: unknown): string[] | null =>
  v === undefined
    ? []
    : Array.isArray(v) &&
        v.length <= MAX_IDS &&
        v.every((x) => typeof x === 'string' && UUID.test(x))
      ? (v as string[])
      : null;

async function readRequest(req: Request): Promise<Request_ | null> {
  let body: Record<string, unknown>;
  try {
    body = (await req.json()) as Record<string, unknown>;
  } catch {
    return null;
  }
  if (typeof body !== 'object' || body === null) return null;
  if (body.action === 'empty' || body.action === 'purge') return { action: body.action };
  if (body.action === 'version') {
    return typeof body.version === 'string' && UUID.test(body.version)
      ? { action: 'version', version: body.version }
      : null;
  }
  if (body.action !== 'delete') return null;
  const files = ids(body.files);
  const folders = ids(body.folders);
  return files && folders ? { action: 'delete', files, folders } : null;
}

Deno.serve(async (req) => {
  if (req.method === 'OPTIONS') return new Response('ok', { headers: cors });
  if (req.method !== 'POST') {
    return json(405, { error: 'method_not_allowed', message: 'Use POST.' });
  }
  const authorization = req.headers.get('authorization');
  if (!authorization?.startsWith('Bearer ')) {
    return json(401, { error: 'unauthorized', message: 'Sign in to empty your Trash.' });
  }
  const url = Deno.env.get('SUPABASE_URL');
  const apikey = req.headers.get('apikey') ?? Deno.env.get('SUPABASE_ANON_KEY');
  if (!url || !apikey)
    return json(500, { error: 'misconfigured', message: 'Trash is unavailable.' });
  const request = await readRequest(req);
  if (!request) {
    return json(400, {
      error: 'invalid_request',
      message:
        'Expected {"action": "delete", "files": [uuid…], "folders": [uuid…]}, "empty", "purge" or {"action": "version", "version": uuid}.',
    });
  }
  const headers = { apikey, authorization, 'content-type': 'application/json' };

  const rpc = async <T>(name: string, args: unknown): Promise<T> => {
    const res = await fetch(`${url}/rest/v1/rpc/${name}`, {
      method: 'POST',
      headers,
      body: JSON.stringify(args),
    });
    if (!res.ok) throw new Upstream(res.status);
    return (await res.json()) as T;
  };

  const remove = async (paths: string[]) => {
    for (let i = 0; i < paths.length; i += REMOVE_BATCH) {
      const res = await fetch(`${url}/storage/v1/object/files`, {
        method: 'DELETE',
        headers,
        body: JSON.stringify({ prefixes: paths.slice(i, i + REMOVE_BATCH) }),
      });
      if (!res.ok) throw new Upstream(res.status);
      await res.body?.cancel();
    }
  };
  // Versions go the same way: marked, their objects removed, then the rows (see
  // migrations/20261127001600_versions_calls.sql).
  const pruneVersions = async () => {
    const objects = await rpc<Array<{ object_path: string }>>('begin_prune_versions', {});
    await remove(objects.map((o) => o.object_path));
    return { objects: objects.length, versions: await rpc<number>('finish_version_deletes', {}) };
  };

  try {
    if (request.action === 'version') {
      // The database's refusal (not found, not an Editor, the current version) as it is.
      const res = await fetch(`${url}/rest/v1/rpc/begin_delete_version`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ p_version: request.version }),
      });
      if (res.status >= 400 && res.status < 500 && res.status !== 401) {
        return json(res.status, await res.json());
      }
      if (!res.ok) throw new Upstream(res.status);
      const objects = (await res.json()) as Array<{ object_path: string }>;
      await remove(objects.map((o) => o.object_path));
      const versions = await rpc<number>('finish_version_deletes', {});
      return json(200, { deleted: 0, objects: objects.length, versions });
    }
    let files: string[];
    let folders: string[];
    if (request.action === 'delete') {
      ({ files, folders } = request);
    } else {
      const roots = await rpc<Array<{ kind: string; id: string }>>('trash_roots', {
        p_older_than: request.action === 'purge' ? RETENTION : '0 seconds',
      });
      files = roots.filter((r) => r.kind === 'file').map((r) => r.id);
      folders = roots.filter((r) => r.kind === 'folder').map((r) => r.id);
    }
    // The purge also prunes versions past their owners' retention.
    const pruned = request.action === 'purge' ? await pruneVersions() : null;
    const answer = (deleted: number, objects: number) =>
      json(
        200,
        pruned
          ? { deleted, objects: objects + pruned.objects, versions: pruned.versions }
          : { deleted, objects },
      );
    if (files.length + folders.length === 0) return answer(0, 0);

    const objects = await rpc<Array<{ object_path: string }>>('begin_delete_forever', {
      p_files: files,
      p_folders: folders,
    });
    const older = await rpc<Array<{ object_path: string }>>('deleting_version_objects', {
      p_files: files,
      p_folders: folders,
    });
    const paths = [...objects, ...older].map((o) => o.object_path);
    await remove(paths);
    const deleted = await rpc<number>('delete_trashed', { p_files: files, p_folders: folders });
    return answer(deleted, paths.length);
  } catch (error) {
    if (error instanceof Upstream && (error.status === 401 || error.status === 403)) {
      return json(401, { error: 'unauthorized', message: 'Sign in again to empty your Trash.' });
    }
    console.error('trash:', error instanceof Error ? error.message : error);
    return json(502, {
      error: 'unavailable',
      message: 'The Trash could not be emptied. Try again.',
    });
  }
});
