/**
 * Drive's backend: sharing, the security matrix (issue 24, item 6). Every role a person can
 * have on a shared folder — owner, Editor, Viewer, no access, a pending invitee (an account
 * whose address was invited but not proven), anon, and a person whose access was removed a
 * moment ago (granted and removed again right before each of their cells) — against every
 * operation, straight through the protocols Drive uses: REST (PostgREST), storage (objects,
 * signed URLs), tus (POST/PATCH to /storage/v1/upload/resumable), functions and realtime.
 *
 * One `it` per cell. An allowed cell checks that the operation works and its effect is there;
 * a refused cell checks the protocol's own answer (a PostgreSQL error code in PostgREST's JSON,
 * no rows where row level security filters, storage's error JSON, tus's status, realtime's
 * join error) AND that nothing changed (read back as the owner, or in the database).
 * The scenarios around the matrix (inheritance, invitations, transfer, quota, activity
 * details) are in sharing.test.ts and sharing-live.test.ts.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { type Client, createClient } from '@app/backend-sdk';
import type { RunningServer } from '@app/backend-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  beginUpload,
  file,
  folder,
  get,
  memoryClient,
  newPerson,
  type Row,
  rpc,
  startDriveServer,
} from './support';

type Person = Client & { uid: string; email: string };
type Role =
  | 'owner'
  | 'editor'
  | 'viewer'
  | 'no access'
  | 'pending invitee'
  | 'anon'
  | 'revoked a moment ago';
const ROLES: Role[] = [
  'owner',
  'editor',
  'viewer',
  'no access',
  'pending invitee',
  'anon',
  'revoked a moment ago',
];
/** Who acts in a cell: a client (signed in, or anon), and the person when there is one. */
interface Actor {
  role: Role;
  c: Client;
  person: Person | null;
}

let server: RunningServer;
let owner: Person;
let editor: Person;
let viewer: Person;
let stranger: Person;
let pending: Person;
let revoked: Person;
let bystander: Person;
let anon: Client;
let shared: Row;
let sub: Row;
let privateFolder: Row;
let doc: Row;
let n = 0;
const unique = (stem: string) => `${stem}-${++n}`;

const share = (by: Client, kind: 'file' | 'folder', id: string, email: string, role: string) =>
  by.rpc('share_with', { p_kind: kind, p_id: id, p_email: email, p_role: role }).single();

async function grantOf(item: string, email: string) {
  const { rows } = await server.db.query<{ id: string; grantee_id: string | null }>(
    'select id, grantee_id from public.grants where item_id = $1 and email = $2',
    [item, email],
  );
  return rows[0];
}

async function objectStored(path: string) {
  const { rows } = await server.db.query(
    `select 1 from storage.objects where bucket_id = 'files' and name = $1`,
    [path],
  );
  return rows.length === 1;
}

async function tokenOf(c: Client) {
  const { data } = await c.auth.getSession();
  return data.session?.access_token ?? server.anonKey;
}

/** A raw request as the actor (their token, or the anon key). */
async function call(a: Actor, path: string, init: RequestInit = {}) {
  const headers = new Headers(init.headers);
  headers.set('apikey', server.anonKey);
  headers.set('authorization', `Bearer ${await tokenOf(a.c)}`);
  const res = await fetch(`${server.url}${path}`, { ...init, headers });
  const text = await res.text();
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {}
  return { status: res.status, text, json, headers: res.headers };
}

/** PostgREST's refusal of a signed-in caller by a PostgreSQL error (HTTP 403). */
const refusedBy = (code: string, hint?: string) =>
  expect.objectContaining({ code, ...(hint ? { hint } : {}) });
/** Anon has no privilege on Drive's tables and rpcs: 42501, HTTP 401. */
function expectAnonDenied(res: { error: unknown; status: number; data?: unknown }) {
  expect(res.error).toMatchObject({ code: '42501' });
  expect((res.error as { message: string }).message).toMatch(/^permission denied for /);
  expect(res.status).toBe(401);
}

/** Storage's refusal in the hosted shape: HTTP 400 with the logical status in the JSON. */
function expectStorageError(
  res: { status: number; json: unknown },
  statusCode: string,
  code: string,
) {
  expect(res.status).toBe(400);
  expect(res.json).toEqual({
    statusCode,
    code,
    error: expect.any(String),
    message: expect.any(String),
  });
}

/** A fresh file of the owner's in Shared/Sub (a cell's own target). */
const target = (stem: string, body = 'target') => file(owner, `${unique(stem)}.txt`, sub.id, body);

const b64 = (s: string) => Buffer.from(s).toString('base64');
const tusHeaders = (path: string, length: number) => ({
  'tus-resumable': '1.0.0',
  'upload-length': String(length),
  'upload-metadata': [
    `bucketName ${b64('files')}`,
    `objectName ${b64(path)}`,
    `contentType ${b64('text/plain')}`,
  ].join(','),
});
const tusPatch = (body: string) => ({
  method: 'PATCH',
  headers: {
    'tus-resumable': '1.0.0',
    'upload-offset': '0',
    'content-type': 'application/offset+octet-stream',
  },
  body,
});

// Realtime --------------------------------------------------------------------------------

const requireFromServer = createRequire(
  fileURLToPath(new URL('../../../../packages/backend-server/package.json', import.meta.url)),
);
/** A realtime-capable client with the actor's session (or none: anon). */
async function liveAs(a: Actor): Promise<Client> {
  const memory = new Map<string, string>();
  const c = createClient(server.url, server.anonKey, {
    auth: {
      storage: {
        getItem: (k: string) => memory.get(k) ?? null,
        setItem: (k: string, v: string) => void memory.set(k, v),
        removeItem: (k: string) => void memory.delete(k),
      },
      autoRefreshToken: false,
    },
    realtime: { transport: requireFromServer('ws') },
  } as never);
  const { data } = await a.c.auth.getSession();
  if (data.session) {
    const set = await c.auth.setSession({
      access_token: data.session.access_token,
      refresh_token: data.session.refresh_token,
    });
    if (set.error) throw set.error;
  }
  return c;
}

type Heard = { event: string; payload: Record<string, unknown> };
/** Joins a private topic; the join's outcome, and what it hears afterwards. */
async function join(c: Client, topic: string, presence = false) {
  const heard: Heard[] = [];
  const channel = c.channel(topic, {
    config: { private: true, ...(presence ? { presence: { key: 'device', enabled: true } } : {}) },
  });
  channel.on('broadcast', { event: '*' }, (m) => void heard.push(m as unknown as Heard));
  const status = await new Promise<string>((resolve) => {
    channel.subscribe((s) => {
      if (s !== 'CLOSED') resolve(s);
    });
  });
  return { status, heard, leave: () => channel.unsubscribe() };
}

async function until(check: () => boolean, what: string) {
  for (let i = 0; i < 100; i += 1) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

// The matrix --------------------------------------------------------------------------------

interface Operation {
  name: string;
  allowed: Role[];
  cell(a: Actor, allowed: boolean): Promise<void>;
}

const SIGNED_IN_REFUSED = (a: Actor) => a.role !== 'anon';

const OPERATIONS: Operation[] = [
  {
    name: 'list',
    allowed: ['owner', 'editor', 'viewer'],
    async cell(a, allowed) {
      const files = await a.c.from('files').select('id,name').eq('folder_id', shared.id);
      const folders = await a.c.from('folders').select('id,name').eq('parent_id', shared.id);
      if (allowed) {
        expect(files.data).toEqual(expect.arrayContaining([{ id: doc.id, name: 'doc.txt' }]));
        expect(folders.data).toEqual(expect.arrayContaining([{ id: sub.id, name: 'Sub' }]));
      } else if (SIGNED_IN_REFUSED(a)) {
        expect(files).toMatchObject({ error: null, data: [], status: 200 });
        expect(folders).toMatchObject({ error: null, data: [], status: 200 });
      } else {
        expectAnonDenied(files);
        expectAnonDenied(folders);
      }
    },
  },
  {
    name: 'read',
    allowed: ['owner', 'editor', 'viewer'],
    async cell(a, allowed) {
      const one = await a.c.from('files').select('*').eq('id', doc.id);
      const dir = await a.c.from('folders').select('*').eq('id', shared.id);
      if (allowed) {
        expect(one.data).toEqual([expect.objectContaining({ id: doc.id, owner_id: owner.uid })]);
        expect(dir.data).toEqual([expect.objectContaining({ id: shared.id, name: 'Shared' })]);
      } else if (SIGNED_IN_REFUSED(a)) {
        expect(one).toMatchObject({ error: null, data: [] });
        expect(dir).toMatchObject({ error: null, data: [] });
      } else {
        expectAnonDenied(one);
        expectAnonDenied(dir);
      }
    },
  },
  {
    name: 'download (object)',
    allowed: ['owner', 'editor', 'viewer'],
    async cell(a, allowed) {
      const res = await call(a, `/storage/v1/object/files/${doc.object_path}`);
      if (allowed) {
        expect(res.status).toBe(200);
        expect(res.text).toBe('doc');
      } else {
        expectStorageError(res, '404', 'NoSuchKey');
      }
    },
  },
  {
    name: 'download (signed URL)',
    allowed: ['owner', 'editor', 'viewer'],
    async cell(a, allowed) {
      const res = await call(a, `/storage/v1/object/sign/files/${doc.object_path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ expiresIn: 60 }),
      });
      if (allowed) {
        expect(res.status).toBe(200);
        const { signedURL } = res.json as { signedURL: string };
        const bytes = await fetch(`${server.url}/storage/v1${signedURL}`);
        expect(await bytes.text()).toBe('doc');
      } else {
        expectStorageError(res, '404', 'NoSuchKey');
      }
    },
  },
  {
    name: 'download (zip entries)',
    allowed: ['owner', 'editor', 'viewer'],
    async cell(a, allowed) {
      const res = await a.c.rpc('download_entries', { p_folders: [shared.id] });
      if (allowed) {
        const paths = (res.data as { path: string }[]).map((e) => e.path);
        expect(paths).toEqual(expect.arrayContaining(['Shared/', 'Shared/doc.txt', 'Shared/Sub/']));
      } else if (SIGNED_IN_REFUSED(a)) {
        expect(res).toMatchObject({ error: null, data: [] });
      } else {
        expectAnonDenied(res);
      }
    },
  },
  {
    name: 'upload (begin_upload + storage)',
    allowed: ['owner', 'editor'],
    async cell(a, allowed) {
      const name = `${unique('up')}.txt`;
      if (allowed) {
        const row = await beginUpload(a.c, name, shared.id, 5);
        const res = await call(a, `/storage/v1/object/files/${row.object_path}`, {
          method: 'POST',
          headers: { 'content-type': 'text/plain' },
          body: 'hello',
        });
        expect(res.status).toBe(200);
        const ready = await a.c.from('files').update({ status: 'ready' }).eq('id', row.id);
        expect(ready.error).toBeNull();
        expect(await get(owner, 'files', row.id)).toMatchObject({
          owner_id: owner.uid,
          created_by: a.person?.uid,
          status: 'ready',
        });
        const back = await owner.storage.from('files').download(row.object_path);
        expect(await back.data?.text()).toBe('hello');
        return;
      }
      const begun = await a.c
        .rpc('begin_upload', { p_folder_id: shared.id, p_name: name, p_size: 5 })
        .single();
      if (SIGNED_IN_REFUSED(a)) {
        expect(begun.error).toEqual(refusedBy('42501'));
        expect(begun.status).toBe(403);
      } else expectAnonDenied(begun);
      // An upload an Editor began: its object is not this person's to store.
      const row = await beginUpload(editor, name, shared.id, 5);
      const res = await call(a, `/storage/v1/object/files/${row.object_path}`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: 'hello',
      });
      expectStorageError(res, '403', 'AccessDenied');
      expect(await objectStored(row.object_path)).toBe(false);
      const { rows } = await server.db.query(
        'select 1 from public.files where folder_id = $1 and name = $2',
        [shared.id, name],
      );
      expect(rows).toHaveLength(1); // the Editor's row only
    },
  },
  {
    name: 'upload (tus)',
    allowed: ['owner', 'editor'],
    async cell(a, allowed) {
      const name = `${unique('tus')}.txt`;
      if (allowed) {
        const row = await beginUpload(a.c, name, shared.id, 6);
        const created = await call(a, '/storage/v1/upload/resumable', {
          method: 'POST',
          headers: tusHeaders(row.object_path, 6),
        });
        expect(created.status).toBe(201);
        const location = created.headers.get('location') as string;
        const patched = await call(a, new URL(location).pathname, tusPatch('sixsix'));
        expect(patched.status).toBe(204);
        expect(patched.headers.get('upload-offset')).toBe('6');
        expect(await objectStored(row.object_path)).toBe(true);
        const ready = await a.c.from('files').update({ status: 'ready' }).eq('id', row.id);
        expect(ready.error).toBeNull();
        const back = await owner.storage.from('files').download(row.object_path);
        expect(await back.data?.text()).toBe('sixsix');
        return;
      }
      // An upload an Editor began and created on tus: neither a new one for its object, nor
      // bytes into the Editor's.
      const row = await beginUpload(editor, name, shared.id, 6);
      const created = await call(a, '/storage/v1/upload/resumable', {
        method: 'POST',
        headers: tusHeaders(row.object_path, 6),
      });
      expect(created.status).toBe(403);
      expect(created.headers.get('location')).toBeNull();
      const editors = await call(
        { role: 'editor', c: editor, person: editor },
        '/storage/v1/upload/resumable',
        { method: 'POST', headers: tusHeaders(row.object_path, 6) },
      );
      expect(editors.status).toBe(201);
      const path = new URL(editors.headers.get('location') as string).pathname;
      const patched = await call(a, path, tusPatch('sixsix'));
      expect(patched.status).toBe(403);
      expect(await objectStored(row.object_path)).toBe(false);
      // The Editor's upload is untouched: still at 0 bytes.
      const head = await call({ role: 'editor', c: editor, person: editor }, path, {
        method: 'HEAD',
        headers: { 'tus-resumable': '1.0.0' },
      });
      expect(head.headers.get('upload-offset')).toBe('0');
    },
  },
  {
    name: 'rename',
    allowed: ['owner', 'editor'],
    async cell(a, allowed) {
      const f = await target('rename');
      const name = `${unique('renamed')}.txt`;
      const res = await a.c.from('files').update({ name }).eq('id', f.id).select('id,name');
      if (allowed) {
        expect(res).toMatchObject({ error: null, data: [{ id: f.id, name }] });
        expect((await get(owner, 'files', f.id))?.name).toBe(name);
        return;
      }
      if (SIGNED_IN_REFUSED(a)) expect(res).toMatchObject({ error: null, data: [] });
      else expectAnonDenied(res);
      expect((await get(owner, 'files', f.id))?.name).toBe(f.name);
    },
  },
  {
    name: 'move within the shared folder',
    allowed: ['owner', 'editor'],
    async cell(a, allowed) {
      const f = await target('within');
      const res = await a.c
        .from('files')
        .update({ folder_id: shared.id })
        .eq('id', f.id)
        .select('id');
      if (allowed) {
        expect(res.data).toEqual([{ id: f.id }]);
        expect(await get(owner, 'files', f.id)).toMatchObject({
          folder_id: shared.id,
          ancestors: [shared.id],
        });
        return;
      }
      if (SIGNED_IN_REFUSED(a)) expect(res).toMatchObject({ error: null, data: [] });
      else expectAnonDenied(res);
      expect(await get(owner, 'files', f.id)).toMatchObject({ folder_id: sub.id });
    },
  },
  {
    name: 'move in',
    allowed: ['owner'],
    async cell(a, allowed) {
      // The actor's own file, moved into the shared folder.
      const mine = a.person ? await file(a.person, `${unique('mine')}.txt`, null, 'mine') : doc;
      const res = await a.c
        .from('files')
        .update({ folder_id: shared.id })
        .eq('id', mine.id)
        .select('id');
      if (allowed) {
        expect(res.data).toEqual([{ id: mine.id }]);
        expect(await get(viewer, 'files', mine.id)).toMatchObject({ folder_id: shared.id });
        return;
      }
      if (a.role === 'editor' || a.role === 'viewer') {
        // Into someone else's folder they see: refused by name.
        expect(res.error).toEqual(refusedBy('42501', 'other_owner'));
      } else if (SIGNED_IN_REFUSED(a)) {
        // A folder they cannot see: the owner's policy's check.
        expect(res.error).toEqual(refusedBy('42501'));
        expect(res.error?.message).toMatch(/row-level security/);
      } else expectAnonDenied(res);
      expect(res.status).toBe(a.role === 'anon' ? 401 : 403);
      if (a.person)
        expect(await get(a.person, 'files', mine.id)).toMatchObject({ folder_id: null });
      expect(await get(owner, 'files', mine.id)).toEqual(a.person ? null : expect.anything());
    },
  },
  {
    name: 'move out',
    allowed: ['owner'],
    async cell(a, allowed) {
      const f = await target('out');
      const res = await a.c
        .from('files')
        .update({ folder_id: privateFolder.id })
        .eq('id', f.id)
        .select('id');
      if (allowed) {
        expect(res.data).toEqual([{ id: f.id }]);
        expect(await get(owner, 'files', f.id)).toMatchObject({ folder_id: privateFolder.id });
        expect(await get(viewer, 'files', f.id)).toBeNull();
        return;
      }
      if (a.role === 'editor') {
        expect(res.error).toEqual(refusedBy('42501', 'not_editor'));
        expect(res.status).toBe(403);
      } else if (SIGNED_IN_REFUSED(a)) expect(res).toMatchObject({ error: null, data: [] });
      else expectAnonDenied(res);
      expect(await get(owner, 'files', f.id)).toMatchObject({ folder_id: sub.id });
    },
  },
  {
    name: 'trash',
    allowed: ['owner', 'editor'],
    async cell(a, allowed) {
      const f = await target('trash');
      const res = await a.c.rpc('trash_items', { p_files: [f.id] });
      if (allowed) {
        expect(res.data).toBe(1);
        expect(await get(owner, 'files', f.id)).toMatchObject({
          trashed_at: expect.any(String),
          trashed_by: a.person?.uid,
        });
        return;
      }
      if (SIGNED_IN_REFUSED(a)) expect(res).toMatchObject({ error: null, data: 0 });
      else expectAnonDenied(res);
      expect(await get(owner, 'files', f.id)).toMatchObject({ trashed_at: null });
    },
  },
  {
    name: 'restore',
    allowed: ['owner', 'editor'],
    async cell(a, allowed) {
      const f = await target('restore');
      await rpc(owner, 'trash_items', { p_files: [f.id] });
      const res = await a.c.rpc('restore_items', { p_files: [f.id] });
      if (allowed) {
        expect(res.data).toEqual([
          expect.objectContaining({ id: f.id, parent_id: sub.id, relocated: false }),
        ]);
        expect(await get(owner, 'files', f.id)).toMatchObject({ trashed_at: null });
        return;
      }
      if (SIGNED_IN_REFUSED(a)) expect(res).toMatchObject({ error: null, data: [] });
      else expectAnonDenied(res);
      expect(await get(owner, 'files', f.id)).toMatchObject({ trashed_at: expect.any(String) });
    },
  },
  {
    name: 'delete forever',
    allowed: ['owner'],
    async cell(a, allowed) {
      const f = await target('forever');
      await rpc(owner, 'trash_items', { p_files: [f.id] });
      const res = await call(a, '/functions/v1/trash', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ action: 'delete', files: [f.id], folders: [] }),
      });
      if (allowed) {
        expect(res).toMatchObject({ status: 200, json: { deleted: 1, objects: 1 } });
        expect(await get(owner, 'files', f.id)).toBeNull();
        expect(await objectStored(f.object_path as string)).toBe(false);
        return;
      }
      if (SIGNED_IN_REFUSED(a)) {
        expect(res).toMatchObject({ status: 200, json: { deleted: 0, objects: 0 } });
      } else {
        expect(res).toMatchObject({ status: 401, json: { error: 'unauthorized' } });
      }
      expect(await get(owner, 'files', f.id)).toMatchObject({
        trashed_at: expect.any(String),
        deleting_since: null,
      });
      expect(await objectStored(f.object_path as string)).toBe(true);
    },
  },
  {
    name: 'share',
    allowed: ['owner'],
    async cell(a, allowed) {
      const email = `${unique('invitee')}@example.com`;
      const res = await share(a.c, 'folder', shared.id, email, 'editor');
      if (allowed) {
        expect(res.data).toMatchObject({ email, role: 'editor', pending: true });
        expect(await grantOf(shared.id, email)).toBeDefined();
        return;
      }
      if (SIGNED_IN_REFUSED(a)) {
        expect(res.error).toEqual(refusedBy('42501', 'not_owner'));
        expect(res.status).toBe(403);
      } else expectAnonDenied(res);
      expect(await grantOf(shared.id, email)).toBeUndefined();
    },
  },
  {
    name: 'unshare',
    allowed: ['owner'],
    async cell(a, allowed) {
      await share(owner, 'folder', shared.id, bystander.email, 'viewer');
      const g = await grantOf(shared.id, bystander.email);
      const res = await a.c.rpc('unshare', { p_grant: g?.id });
      if (allowed) {
        expect(res.error).toBeNull();
        expect(await grantOf(shared.id, bystander.email)).toBeUndefined();
        return;
      }
      if (SIGNED_IN_REFUSED(a)) {
        expect(res.error).toEqual(refusedBy('42501', 'not_owner'));
        expect(res.status).toBe(403);
      } else expectAnonDenied(res);
      expect(await grantOf(shared.id, bystander.email)).toEqual(g);
    },
  },
  {
    name: 'read activity',
    allowed: ['owner', 'editor', 'viewer'],
    async cell(a, allowed) {
      const res = await a.c.rpc('item_activity', { p_kind: 'file', p_id: doc.id });
      const rows = await a.c.from('activity').select('action,item_id').eq('item_id', doc.id);
      if (allowed) {
        expect(res.data).toEqual([
          expect.objectContaining({ action: 'uploaded', actor_id: owner.uid, item_id: doc.id }),
        ]);
        expect(rows.data).toEqual([{ action: 'uploaded', item_id: doc.id }]);
      } else if (SIGNED_IN_REFUSED(a)) {
        expect(res).toMatchObject({ error: null, data: [] });
        expect(rows).toMatchObject({ error: null, data: [] });
      } else {
        expectAnonDenied(res);
        expectAnonDenied(rows);
      }
    },
  },
  {
    name: "subscribe to the owner's live topic",
    allowed: ['owner'],
    async cell(a, allowed) {
      const live = await liveAs(a);
      const joined = await join(live, `drive:${owner.uid}`);
      await joined.leave();
      expect(joined.status).toBe(allowed ? 'SUBSCRIBED' : 'CHANNEL_ERROR');
    },
  },
  {
    name: 'hear changes on their own live topic',
    allowed: ['owner', 'editor', 'viewer'],
    async cell(a, allowed) {
      const live = await liveAs(a);
      if (!a.person) {
        // Anon has no topic of its own, and may join no one's.
        expect((await join(live, `drive:${viewer.uid}`)).status).toBe('CHANNEL_ERROR');
        return;
      }
      const me = a.person;
      const joined = await join(live, `drive:${me.uid}`);
      expect(joined.status).toBe('SUBSCRIBED');
      const inShared = await target('live');
      const inPrivate = await file(owner, `${unique('private')}.txt`, privateFolder.id, 'p');
      const leaving = await target('leaving');
      const changes = () => joined.heard.filter((m) => m.event === 'change');
      // The person's own changes frame the measurement: once they hear one, they heard what
      // came before it (the uploads above included).
      const mark = async () => {
        const own = await folder(me, unique('Mark'));
        await until(
          () => changes().some((m) => (m.payload.ids as string[] | undefined)?.includes(own.id)),
          'own change',
        );
        return own.id;
      };
      await mark();
      joined.heard.length = 0;
      await owner
        .from('files')
        .update({ name: `${unique('r')}.txt` })
        .eq('id', inShared.id);
      await owner
        .from('files')
        .update({ name: `${unique('r')}.txt` })
        .eq('id', inPrivate.id);
      await owner.from('files').update({ folder_id: privateFolder.id }).eq('id', leaving.id);
      await mark();
      await new Promise((r) => setTimeout(r, 200)); // (and a moment more, for anything late)
      await joined.leave();
      const others = changes()
        .filter((m) => m.payload.table === 'files')
        .map((m) => m.payload);
      if (a.role === 'owner') {
        expect(others).toEqual([
          { table: 'files', op: 'UPDATE', count: 1, ids: [inShared.id], parents: [sub.id] },
          {
            table: 'files',
            op: 'UPDATE',
            count: 1,
            ids: [inPrivate.id],
            parents: [privateFolder.id],
          },
          {
            table: 'files',
            op: 'UPDATE',
            count: 1,
            ids: [leaving.id],
            parents: expect.arrayContaining([sub.id, privateFolder.id]),
          },
        ]);
      } else if (allowed) {
        // Cut to what they may know: the private file not at all, the folder it went to not.
        expect(others).toEqual([
          { table: 'files', op: 'UPDATE', count: 1, ids: [inShared.id], parents: [sub.id] },
          { table: 'files', op: 'UPDATE', count: 1, ids: [leaving.id], parents: [sub.id] },
        ]);
      } else {
        expect(others).toEqual([]);
      }
      const leaked = JSON.stringify(joined.heard.filter((m) => m.payload.ids !== undefined));
      if (a.role !== 'owner') expect(leaked).not.toContain(privateFolder.id);
    },
  },
  {
    name: 'join presence of the shared folder',
    allowed: ['owner', 'editor', 'viewer'],
    async cell(a, allowed) {
      const live = await liveAs(a);
      const joined = await join(live, `shared:${shared.id}`, true);
      await joined.leave();
      expect(joined.status).toBe(allowed ? 'SUBSCRIBED' : 'CHANNEL_ERROR');
    },
  },
];

beforeAll(async () => {
  server = await startDriveServer();
  owner = await newPerson(server);
  editor = await newPerson(server);
  viewer = await newPerson(server);
  stranger = await newPerson(server);
  revoked = await newPerson(server);
  bystander = await newPerson(server);
  pending = await newPerson(server);
  // An account whose address is not proven: what is shared with the address waits.
  await server.db.query('update auth.users set email_confirmed_at = null where id = $1', [
    pending.uid,
  ]);
  anon = memoryClient(server);
  shared = await folder(owner, 'Shared');
  sub = await folder(owner, 'Sub', shared.id);
  privateFolder = await folder(owner, 'Private');
  doc = await file(owner, 'doc.txt', shared.id, 'doc');
  for (const [p, role] of [
    [editor, 'editor'],
    [viewer, 'viewer'],
    [pending, 'editor'],
  ] as const) {
    expect((await share(owner, 'folder', shared.id, p.email, role)).error).toBeNull();
  }
  expect(await grantOf(shared.id, pending.email)).toMatchObject({ grantee_id: null });
});
afterAll(async () => {
  await server?.stop();
});

function actor(role: Role): Actor {
  const person = {
    owner,
    editor,
    viewer,
    'no access': stranger,
    'pending invitee': pending,
    anon: null,
    'revoked a moment ago': revoked,
  }[role];
  return { role, c: person ?? anon, person };
}

/** The revoked person was an Editor until just now: granted and removed right before acting. */
async function revokeNow() {
  const g = await share(owner, 'folder', shared.id, revoked.email, 'editor');
  expect(g.error).toBeNull();
  await rpc(owner, 'unshare', { p_grant: (g.data as { grant_id: string }).grant_id });
}

describe('Sharing security matrix: role × operation', () => {
  for (const op of OPERATIONS) {
    describe(op.name, () => {
      for (const role of ROLES) {
        const allowed = op.allowed.includes(role);
        it(`${role} × ${op.name} → ${allowed ? 'allowed' : 'refused'}`, async () => {
          if (role === 'revoked a moment ago') await revokeNow();
          await op.cell(actor(role), allowed);
        });
      }
    });
  }
});
