/**
 * Drive's backend: sharing with people (backend/migrations/*_sharing_*.sql, see
 * backend/SHARING.md) — who can do what to a shared folder, through REST and storage as each
 * person would: the owner, an Editor, a Viewer, someone with no access, a pending invitee, a
 * person whose access was removed a moment ago, and anon. Nothing leaks; refusals come in
 * the protocol's own shape (an error code, or no rows as row level security answers).
 */
import type { Client } from '@app/backend-sdk';
import type { RunningServer } from '@app/backend-server';
import { Secret, TOTP } from 'otpauth';
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
  trashFunction,
  usage,
} from './support';

type Person = Client & { uid: string; email: string };

let server: RunningServer;
let owner: Person;
let editor: Person;
let viewer: Person;
let stranger: Person;
let pending: Person;
let revoked: Person;
let anon: Client;
let shared: Row;
let sub: Row;
let doc: Row;
let deep: Row;
let secret: Row;
let privateFolder: Row;

const share = (by: Client, kind: 'file' | 'folder', id: string, email: string, role: string) =>
  by.rpc('share_with', { p_kind: kind, p_id: id, p_email: email, p_role: role }).single();

async function grantId(item: string, email: string) {
  const { rows } = await server.db.query<{ id: string }>(
    'select id from public.grants where item_id = $1 and email = $2',
    [item, email],
  );
  return rows[0]?.id as string;
}

const names = async (c: Client, table: 'files' | 'folders') => {
  const { data, error } = await c.from(table).select('name');
  if (error) return { code: error.code };
  return (data as { name: string }[]).map((r) => r.name).sort();
};

async function download(c: Client, row: Row) {
  const { data, error } = await c.storage.from('files').download(row.object_path as string);
  return error ? 'refused' : await data?.text();
}

beforeAll(async () => {
  server = await startDriveServer();
  owner = await newPerson(server);
  editor = await newPerson(server);
  viewer = await newPerson(server);
  stranger = await newPerson(server);
  revoked = await newPerson(server);
  pending = await newPerson(server);
  // An account whose address is not verified yet: what is shared with it waits.
  await server.db.query('update auth.users set email_confirmed_at = null where id = $1', [
    pending.uid,
  ]);
  anon = memoryClient(server);
  shared = await folder(owner, 'Shared');
  sub = await folder(owner, 'Sub', shared.id);
  doc = await file(owner, 'doc.txt', shared.id, 'doc');
  deep = await file(owner, 'deep.txt', sub.id, 'deep');
  privateFolder = await folder(owner, 'Private');
  secret = await file(owner, 'secret.txt', privateFolder.id, 'secret');
  for (const [p, role] of [
    [editor, 'editor'],
    [viewer, 'viewer'],
    [pending, 'viewer'],
    [revoked, 'editor'],
  ] as const) {
    const g = await share(owner, 'folder', shared.id, p.email, role);
    expect(g.error).toBeNull();
  }
  await rpc(owner, 'unshare', { p_grant: await grantId(shared.id, revoked.email) });
});
afterAll(async () => {
  await server?.stop();
});

describe('Seeing a shared folder', () => {
  it('shows the folder and everything below it to the people it is shared with, nothing else', async () => {
    for (const p of [owner, editor, viewer]) {
      expect(await names(p, 'files')).toEqual(
        p === owner ? ['deep.txt', 'doc.txt', 'secret.txt'] : ['deep.txt', 'doc.txt'],
      );
      expect(await names(p, 'folders')).toEqual(
        p === owner ? ['Private', 'Shared', 'Sub'] : ['Shared', 'Sub'],
      );
      expect(await download(p, deep)).toBe('deep');
    }
    for (const p of [stranger, pending, revoked]) {
      expect(await names(p, 'files')).toEqual([]);
      expect(await names(p, 'folders')).toEqual([]);
      expect(await get(p, 'files', doc.id)).toBeNull();
      expect(await download(p, doc)).toBe('refused');
      expect(await download(p, deep)).toBe('refused');
    }
    expect(await names(anon, 'files')).toMatchObject({ code: '42501' });
    expect(await download(anon, doc)).toBe('refused');
    for (const p of [editor, viewer]) expect(await download(p, secret)).toBe('refused');
  });

  it('signs URLs for people with access only', async () => {
    for (const p of [editor, viewer]) {
      const signed = await p.storage.from('files').createSignedUrl(doc.object_path as string, 60);
      expect(signed.error).toBeNull();
    }
    for (const p of [stranger, pending, revoked, anon]) {
      const signed = await p.storage.from('files').createSignedUrl(doc.object_path as string, 60);
      expect(signed.error).not.toBeNull();
    }
  });

  it('lists who has access to the people with access, pending invitations to the owner only', async () => {
    type Access = { email: string; role: string; pending: boolean; inherited: boolean };
    const forOwner = await rpc<Access[]>(owner, 'list_access', { p_kind: 'file', p_id: deep.id });
    expect(forOwner.map((a) => [a.email, a.role, a.pending, a.inherited])).toEqual(
      expect.arrayContaining([
        [owner.email, 'owner', false, false],
        [editor.email, 'editor', false, true],
        [viewer.email, 'viewer', false, true],
        [pending.email, 'viewer', true, true],
      ]),
    );
    expect(forOwner).toHaveLength(4);
    const forViewer = await rpc<Access[]>(viewer, 'list_access', {
      p_kind: 'folder',
      p_id: shared.id,
    });
    expect(forViewer.map((a) => a.email).sort()).toEqual(
      [owner.email, editor.email, viewer.email].sort(),
    );
    for (const p of [stranger, pending, revoked]) {
      const refused = await p.rpc('list_access', { p_kind: 'folder', p_id: shared.id });
      expect(refused.error).toMatchObject({ code: '42501', hint: 'no_access' });
      expect(refused.status).toBe(403);
    }
    // A made-up id answers exactly like someone else's item.
    const none = await stranger.rpc('list_access', { p_kind: 'folder', p_id: crypto.randomUUID() });
    expect(none.error).toMatchObject({ code: '42501', hint: 'no_access' });
    const anonList = await anon.rpc('list_access', { p_kind: 'folder', p_id: shared.id });
    expect(anonList.error?.code).toBe('42501');
  });

  it('lists what is shared with me, with its owner and my role', async () => {
    const mine = await rpc<Array<Record<string, unknown>>>(viewer, 'shared_with_me');
    expect(mine).toEqual([
      expect.objectContaining({
        kind: 'folder',
        id: shared.id,
        name: 'Shared',
        owner_id: owner.uid,
        owner_email: owner.email,
        role: 'viewer',
        granted_by: owner.uid,
      }),
    ]);
    expect(await rpc(stranger, 'shared_with_me')).toEqual([]);
    expect(await rpc(revoked, 'shared_with_me')).toEqual([]);
    expect(await rpc(owner, 'shared_with_me')).toEqual([]);
  });
});

describe('Changing a shared folder', () => {
  it('lets an Editor upload into it: the file is the owner’s and counts against the owner’s quota', async () => {
    const before = await usage(owner);
    const up = await file(editor, 'from-editor.txt', shared.id, '12345');
    const row = await get(owner, 'files', up.id);
    expect(row).toMatchObject({ owner_id: owner.uid, created_by: editor.uid, status: 'ready' });
    expect(String(row?.object_path).startsWith(`${owner.uid}/`)).toBe(true);
    expect(await usage(owner)).toBe(before + 5);
    expect(await usage(editor)).toBe(0);
    expect(await download(viewer, up)).toBe('12345');
    const folderByEditor = await folder(editor, 'By editor', sub.id);
    expect(folderByEditor.owner_id).toBe(owner.uid);
  });

  it('takes an Editor’s resumable upload, and refuses a Viewer’s', async () => {
    const row = await beginUpload(editor, 'resumable.bin', shared.id, 6);
    const up = editor.storage
      .from('files')
      .uploadResumable(row.object_path, new Blob(['sixsix']), { chunkSize: 6 * 1024 * 1024 });
    expect((await up.result).error).toBeNull();
    const ready = await editor.from('files').update({ status: 'ready' }).eq('id', row.id);
    expect(ready.error).toBeNull();
    expect(await download(viewer, row)).toBe('sixsix');

    const mine = await beginUpload(editor, 'viewer-try.bin', shared.id, 3);
    const refused = viewer.storage
      .from('files')
      .uploadResumable(mine.object_path, new Blob(['abc']), { chunkSize: 6 * 1024 * 1024 });
    expect((await refused.result).error).not.toBeNull();
    expect(await download(owner, mine)).toBe('refused');
  });

  it('refuses uploads and new folders from everyone else', async () => {
    for (const p of [viewer, stranger, pending, revoked]) {
      const begun = await p
        .rpc('begin_upload', { p_folder_id: shared.id, p_name: 'no.txt', p_size: 2 })
        .single();
      expect(begun.error).toMatchObject({ code: '42501' });
      const created = await p.from('folders').insert({ name: 'No', parent_id: shared.id });
      expect(created.error).toMatchObject({ code: '42501' });
      // Straight to storage, under the owner's prefix: refused too.
      const stored = await p.storage
        .from('files')
        .upload(`${owner.uid}/${crypto.randomUUID()}/no.txt`, new Blob(['no']));
      expect(stored.error).not.toBeNull();
      const over = await p.storage
        .from('files')
        .upload(doc.object_path as string, new Blob(['overwritten']), { upsert: true });
      expect(over.error).not.toBeNull();
    }
    const anonUpload = await anon
      .rpc('begin_upload', { p_folder_id: shared.id, p_name: 'no.txt', p_size: 2 })
      .single();
    expect(anonUpload.error?.code).toBe('42501');
    expect(await download(owner, doc)).toBe('doc');
    expect(await names(owner, 'folders')).not.toContain('No');
  });

  it('lets an Editor rename and move within the shared folder, and nobody else', async () => {
    const f = await file(owner, 'rename-me.txt', shared.id, 'r');
    for (const p of [viewer, stranger, pending, revoked]) {
      const r = await p.from('files').update({ name: 'hacked.txt' }).eq('id', f.id).select('id');
      expect(r.data ?? []).toEqual([]);
      const m = await p.from('files').update({ folder_id: sub.id }).eq('id', f.id).select('id');
      expect(m.data ?? []).toEqual([]);
    }
    expect(await get(owner, 'files', f.id)).toMatchObject({
      name: 'rename-me.txt',
      folder_id: shared.id,
    });
    const renamed = await editor.from('files').update({ name: 'renamed.txt' }).eq('id', f.id);
    expect(renamed.error).toBeNull();
    const moved = await editor.from('files').update({ folder_id: sub.id }).eq('id', f.id);
    expect(moved.error).toBeNull();
    expect(await get(owner, 'files', f.id)).toMatchObject({
      name: 'renamed.txt',
      folder_id: sub.id,
      ancestors: [shared.id, sub.id],
    });
    // Out of the shared tree (to the owner's root or private folder, or the Editor's own): no.
    const toRoot = await editor.from('files').update({ folder_id: null }).eq('id', f.id);
    expect(toRoot.error).toMatchObject({ code: '42501', hint: 'not_editor' });
    const toPrivate = await editor
      .from('files')
      .update({ folder_id: privateFolder.id })
      .eq('id', f.id);
    expect(toPrivate.error?.code).toBe('42501');
    const own = await folder(editor, 'Mine');
    const toOwn = await editor.from('files').update({ folder_id: own.id }).eq('id', f.id);
    expect(toOwn.error).toMatchObject({ code: '42501', hint: 'not_editor' });
    // Nor into the shared folder from the Editor's own drive.
    const mineFile = await file(editor, 'mine.txt', null, 'm');
    const intoShared = await editor
      .from('files')
      .update({ folder_id: shared.id })
      .eq('id', mineFile.id);
    expect(intoShared.error).toMatchObject({ code: '42501', hint: 'other_owner' });
    expect(await get(owner, 'files', f.id)).toMatchObject({ folder_id: sub.id });
    // Columns that are the owner's alone.
    const star = await editor
      .from('files')
      .update({ starred_at: new Date().toISOString() })
      .eq('id', f.id);
    expect(star.error).toMatchObject({ code: '42501', hint: 'owner_only' });
    const steal = await editor.from('folders').update({ owner_id: editor.uid }).eq('id', sub.id);
    expect(steal.error).toBeNull();
    expect((await get(owner, 'folders', sub.id))?.owner_id).toBe(owner.uid);
    const path = await editor.from('folders').update({ ancestors: [] }).eq('id', sub.id);
    expect(path.error).toBeNull();
    expect((await get(owner, 'folders', sub.id))?.ancestors).toEqual([shared.id]);
  });

  it('moving in gives access, moving out takes it away — for everything below a folder too', async () => {
    const box = await folder(owner, 'Box', privateFolder.id);
    const inBox = await file(owner, 'in-box.txt', box.id, 'b');
    expect(await get(viewer, 'files', inBox.id)).toBeNull();
    await owner.from('folders').update({ parent_id: sub.id }).eq('id', box.id);
    expect(await get(viewer, 'files', inBox.id)).toMatchObject({
      ancestors: [shared.id, sub.id, box.id],
    });
    expect(await download(viewer, inBox)).toBe('b');
    await owner.from('folders').update({ parent_id: privateFolder.id }).eq('id', box.id);
    expect(await get(viewer, 'files', inBox.id)).toBeNull();
    expect(await download(viewer, inBox)).toBe('refused');
    expect(await get(owner, 'files', inBox.id)).toMatchObject({
      ancestors: [privateFolder.id, box.id],
    });
  });

  it('an Editor’s trashed item goes to the owner’s Trash and comes back with its restore', async () => {
    const t = await file(owner, 'trash-me.txt', sub.id, 't');
    for (const p of [viewer, stranger, revoked]) {
      expect(await rpc<number>(p, 'trash_items', { p_files: [t.id] })).toBe(0);
    }
    expect(await rpc<number>(editor, 'trash_items', { p_files: [t.id] })).toBe(1);
    expect(await get(owner, 'files', t.id)).toMatchObject({ trashed_by: editor.uid });
    await owner.from('files').update({ trashed_by: viewer.uid }).eq('id', t.id);
    expect(await get(owner, 'files', t.id)).toMatchObject({ trashed_by: editor.uid });
    const ownerTrash = await rpc<Array<{ id: string }>>(owner, 'trash_roots');
    expect(ownerTrash.map((r) => r.id)).toContain(t.id);
    expect(await rpc(editor, 'trash_roots')).toEqual([]);
    // Only the owner deletes forever: the Editor's attempt changes nothing.
    const gone = await trashFunction(editor, { action: 'delete', files: [t.id] });
    expect(gone.data).toEqual({ deleted: 0, objects: 0 });
    expect(await download(owner, t)).toBe('t');
    for (const p of [viewer, stranger, revoked]) {
      expect(await rpc(p, 'restore_items', { p_files: [t.id] })).toEqual([]);
    }
    const back = await rpc<Row[]>(editor, 'restore_items', { p_files: [t.id] });
    expect(back).toEqual([
      expect.objectContaining({ id: t.id, parent_id: sub.id, relocated: false }),
    ]);
    expect(await get(owner, 'files', t.id)).toMatchObject({ trashed_at: null, trashed_by: null });
  });

  it('restores to the owner’s root when the place is no longer shared with the Editor', async () => {
    const place = await folder(owner, 'Place', shared.id);
    const t = await file(owner, 'placed.txt', place.id, 'p');
    expect(await rpc<number>(editor, 'trash_items', { p_files: [t.id] })).toBe(1);
    await owner.from('folders').update({ parent_id: privateFolder.id }).eq('id', place.id);
    // No longer the Editor's: the Editor cannot restore it (it is out of their reach)…
    expect(await rpc(editor, 'restore_items', { p_files: [t.id] })).toEqual([]);
    // …and the owner restores it where it was.
    const back = await rpc<Row[]>(owner, 'restore_items', { p_files: [t.id] });
    expect(back[0]).toMatchObject({ parent_id: place.id, relocated: false });

    const inShared = await folder(owner, 'Gone soon', shared.id);
    const g = await file(owner, 'orphan.txt', inShared.id, 'o');
    expect(await rpc<number>(editor, 'trash_items', { p_files: [g.id] })).toBe(1);
    await rpc(owner, 'trash_items', { p_folders: [inShared.id] });
    // The Editor restores the file; its folder is in the Trash: to the owner's root.
    const root = await rpc<Row[]>(editor, 'restore_items', { p_files: [g.id] });
    expect(root[0]).toMatchObject({ parent_id: null, relocated: true });
    expect(await get(owner, 'files', g.id)).toMatchObject({ folder_id: null, owner_id: owner.uid });
    expect(await get(editor, 'files', g.id)).toBeNull();
  });

  it('an item shared by itself goes back to its place, which the Editor cannot see', async () => {
    const own = await folder(owner, 'Own place', privateFolder.id);
    const item = await folder(owner, 'Item', own.id);
    const e = await newPerson(server);
    await share(owner, 'folder', item.id, e.email, 'editor');
    expect(await rpc<number>(e, 'trash_items', { p_folders: [item.id] })).toBe(1);
    const back = await rpc<Row[]>(e, 'restore_items', { p_folders: [item.id] });
    expect(back).toEqual([expect.objectContaining({ parent_id: own.id, relocated: false })]);
    expect(await get(owner, 'folders', item.id)).toMatchObject({ parent_id: own.id });
  });

  it('only the owner manages access', async () => {
    for (const p of [editor, viewer, stranger, pending, revoked]) {
      const s = await share(p, 'folder', shared.id, 'someone@example.com', 'editor');
      expect(s.error).toMatchObject({ code: '42501', hint: 'not_owner' });
      const role = await p.rpc('set_share_role', {
        p_grant: await grantId(shared.id, viewer.email),
        p_role: 'editor',
      });
      expect(role.error).toMatchObject({ code: '42501' });
      const someoneElse = p === viewer ? editor : viewer;
      const un = await p.rpc('unshare', { p_grant: await grantId(shared.id, someoneElse.email) });
      expect(un.error).toMatchObject({ code: '42501', hint: 'not_owner' });
    }
    const anonShare = await share(anon, 'folder', shared.id, 'someone@example.com', 'editor');
    expect(anonShare.error?.code).toBe('42501');
    const own = await share(owner, 'folder', shared.id, owner.email, 'editor');
    expect(own.error).toMatchObject({ code: '22023', hint: 'share_self' });
    const bad = await share(owner, 'folder', shared.id, 'not an address', 'editor');
    expect(bad.error).toMatchObject({ code: '22023', hint: 'invalid_email' });
    const { rows } = await server.db.query(
      `select 1 from public.grants where email = 'someone@example.com'`,
    );
    expect(rows).toEqual([]);
    expect(await names(viewer, 'files')).toContain('doc.txt');
  });

  it('grants and the mail outbox are not writable (or readable) by clients', async () => {
    const insert = await editor.from('grants').insert({
      folder_id: privateFolder.id,
      owner_id: owner.uid,
      grantee_id: editor.uid,
      email: editor.email,
      role: 'editor',
    });
    expect(insert.error?.code).toBe('42501');
    const upgrade = await viewer
      .from('grants')
      .update({ role: 'editor' })
      .eq('grantee_id', viewer.uid);
    expect(upgrade.error?.code).toBe('42501');
    const mine = await viewer.from('grants').select('role,email');
    expect(mine.data).toEqual([{ role: 'viewer', email: viewer.email }]);
    expect((await stranger.from('grants').select('id')).data).toEqual([]);
    expect((await owner.from('mail_outbox').select('id')).error?.code).toBe('42501');
  });
});

describe('More of the matrix', () => {
  it('zips a shared folder for the people with access, and nothing for anyone else', async () => {
    type Entry = { path: string };
    const paths = async (c: Client) => {
      const { data, error } = await c.rpc('download_entries', { p_folders: [shared.id] });
      if (error) return { code: error.code };
      return (data as Entry[]).map((e) => e.path);
    };
    const forViewer = (await paths(viewer)) as string[];
    expect(forViewer).toEqual(expect.arrayContaining(['Shared/', 'Shared/Sub/deep.txt']));
    expect(forViewer.some((p) => p.includes('secret'))).toBe(false);
    for (const p of [stranger, pending, revoked]) expect(await paths(p)).toEqual([]);
    expect(await paths(anon)).toMatchObject({ code: '42501' });
  });

  it('lets an Editor upload a folder into it, and cancel their own unfinished upload', async () => {
    const made = await rpc<string>(editor, 'ensure_folder_path', {
      p_parent_id: shared.id,
      p_names: ['Upload', 'Nested'],
    });
    expect(await get(owner, 'folders', made)).toMatchObject({
      owner_id: owner.uid,
      created_by: editor.uid,
    });
    for (const p of [viewer, stranger]) {
      const refused = await p.rpc('ensure_folder_path', {
        p_parent_id: shared.id,
        p_names: ['Nope'],
      });
      expect(refused.error?.code).toBe('42501');
    }
    const begun = await editor
      .rpc('begin_upload', { p_folder_id: made, p_name: 'part.bin', p_size: 3 })
      .single();
    const row = begun.data as Row;
    // Someone else's unfinished upload is not theirs to cancel, nor to write into.
    const other = await viewer.from('files').delete().eq('id', row.id).select('id');
    expect(other.data ?? []).toEqual([]);
    const cancelled = await editor.from('files').delete().eq('id', row.id).select('id');
    expect(cancelled.data).toEqual([{ id: row.id }]);
  });

  it('a REST or storage DELETE by anyone but the owner removes nothing', async () => {
    for (const p of [editor, viewer, stranger, revoked]) {
      const rows = await p.from('files').delete().eq('id', doc.id).select('id');
      expect(rows.data ?? []).toEqual([]);
      const dirs = await p.from('folders').delete().eq('id', sub.id).select('id');
      expect(dirs.data ?? []).toEqual([]);
      const objects = await p.storage.from('files').remove([doc.object_path as string]);
      expect(objects.data ?? []).toEqual([]);
    }
    expect(await download(owner, doc)).toBe('doc');
    expect(await get(owner, 'folders', sub.id)).not.toBeNull();
  });
});

describe('Speed', () => {
  it('evaluates the grant list once per statement (an InitPlan), not once per row', async () => {
    const plan = await server.db.transaction(async (tx) => {
      await tx.query(
        `select set_config('request.jwt.claims', $1, true), set_config('role', 'authenticated', true)`,
        [JSON.stringify({ sub: viewer.uid, role: 'authenticated' })],
      );
      const { rows } = await tx.query<Record<string, string>>(
        'explain select * from public.files where folder_id = $1',
        [shared.id],
      );
      return rows.map((r) => Object.values(r)[0]).join('\n');
    });
    // PostgreSQL 15 prints the InitPlan's result as $n, newer versions as (InitPlan n).col1.
    expect(plan).toMatch(/\(ancestors \|\| id\) && (\$\d+|\(InitPlan \d+\)\.col1)\)/);
    expect(plan).toMatch(/InitPlan/);
    expect(plan).not.toMatch(/shared_ids/);
  });
});

describe('Invitations and roles', () => {
  it('a pending invitation becomes access once the address is proven: the mail’s link, a confirmation, a provider', async () => {
    const a = await newPerson(server);
    const box = await folder(a, 'For later');
    await file(a, 'later.txt', box.id, 'l');
    const email = `invited-${Date.now()}@example.com`;
    const invited = await share(a, 'folder', box.id, email, 'editor');
    expect(invited.data).toMatchObject({ email, role: 'editor', pending: true });
    const { rows: mail } = await server.db.query<{
      kind: string;
      to_email: string;
      invite_token: string;
    }>('select kind, to_email, invite_token from public.mail_outbox where item_id = $1', [box.id]);
    expect(mail).toEqual([{ kind: 'invited', to_email: email, invite_token: expect.any(String) }]);
    // Signing up with the address proves nothing while sign-ups need no confirmation…
    const b = await newPerson(server, email);
    expect(await names(b, 'files')).toEqual([]);
    const wrong = await b.rpc('accept_invitation', { p_token: 'f'.repeat(64) });
    expect(wrong.error).toMatchObject({ code: '42501', hint: 'invitation_not_found' });
    // …the invitation mail does.
    const taken = await b.rpc('accept_invitation', { p_token: mail[0]?.invite_token });
    expect(taken.data).toEqual([{ kind: 'folder', id: box.id, role: 'editor' }]);
    expect(await names(b, 'files')).toEqual(['later.txt']);
    expect(await rpc<Array<{ role: string }>>(b, 'shared_with_me')).toEqual([
      expect.objectContaining({ id: box.id, role: 'editor' }),
    ]);
    const again = await stranger.rpc('accept_invitation', { p_token: mail[0]?.invite_token });
    expect(again.error).toMatchObject({ code: '42501', hint: 'invitation_not_found' });
    // An account whose address a provider vouched for takes its invitations at once.
    const viaProvider = `provider-${Date.now()}@example.com`;
    await share(a, 'folder', box.id, viaProvider, 'viewer');
    const { rows: made } = await server.db.query<{ id: string }>(
      `insert into auth.users (id, email, email_confirmed_at, raw_app_meta_data, created_at)
       values (gen_random_uuid(), $1, now(), '{"provider": "github"}', now()) returning id`,
      [viaProvider],
    );
    const { rows: bound } = await server.db.query(
      'select grantee_id from public.grants where item_id = $1 and email = $2',
      [box.id, viaProvider],
    );
    expect(bound).toEqual([{ grantee_id: made[0]?.id }]);
    // The pending invitee of the shared folder, once verified, too.
    expect(await names(pending, 'files')).toEqual([]);
    await server.db.query('update auth.users set email_confirmed_at = now() where id = $1', [
      pending.uid,
    ]);
    expect(await names(pending, 'files')).toContain('doc.txt');
    await server.db.query('update auth.users set email_confirmed_at = null where id = $1', [
      pending.uid,
    ]);
    await rpc(owner, 'unshare', { p_grant: await grantId(shared.id, pending.email) });
    await share(owner, 'folder', shared.id, pending.email, 'viewer');
  });

  it('a deeper grant widens access, and a removal is immediate', async () => {
    const v = await newPerson(server);
    await rpc(owner, 'share_with', {
      p_kind: 'folder',
      p_id: shared.id,
      p_email: v.email,
      p_role: 'viewer',
    });
    await rpc(owner, 'share_with', {
      p_kind: 'folder',
      p_id: sub.id,
      p_email: v.email,
      p_role: 'editor',
    });
    expect(await rpc(v, 'my_role', { p_kind: 'folder', p_id: shared.id })).toBe('viewer');
    expect(await rpc(v, 'my_role', { p_kind: 'file', p_id: deep.id })).toBe('editor');
    const inSub = await file(v, 'into-sub.txt', sub.id, 's');
    expect(inSub.owner_id).toBe(owner.uid);
    const inShared = await v
      .rpc('begin_upload', { p_folder_id: shared.id, p_name: 'x.txt', p_size: 1 })
      .single();
    expect(inShared.error?.code).toBe('42501');
    // Sharing again changes the role.
    await rpc(owner, 'share_with', {
      p_kind: 'folder',
      p_id: sub.id,
      p_email: v.email,
      p_role: 'viewer',
    });
    expect(await rpc(v, 'my_role', { p_kind: 'file', p_id: deep.id })).toBe('viewer');
    await rpc(owner, 'unshare', { p_grant: await grantId(sub.id, v.email) });
    await rpc(owner, 'unshare', { p_grant: await grantId(shared.id, v.email) });
    expect(await names(v, 'files')).toEqual([]);
    expect(await download(v, deep)).toBe('refused');
    expect(await rpc(v, 'my_role', { p_kind: 'file', p_id: deep.id })).toBeNull();
  });

  it('a person may leave what was shared with them', async () => {
    const v = await newPerson(server);
    const g = await share(owner, 'file', doc.id, v.email, 'viewer');
    expect(await download(v, doc)).toBe('doc');
    await rpc(v, 'unshare', { p_grant: (g.data as { grant_id: string }).grant_id });
    expect(await download(v, doc)).toBe('refused');
  });

  it('the owner’s own drive is unchanged: usage, search and Recent are the owner’s', async () => {
    expect(await usage(editor)).toBe(1); // mine.txt only
    expect(await rpc(editor, 'search_files', { q: 'doc' })).toEqual([]);
    expect(await rpc(viewer, 'recent_files')).toEqual([]);
    // Opening a shared file is not an error (and is not recorded for someone else).
    expect((await viewer.rpc('record_open', { p_file_id: doc.id })).error).toBeNull();
  });
});

describe('Activity', () => {
  type Entry = {
    action: string;
    actor_id: string;
    item_id: string;
    details: Record<string, unknown>;
  };
  const activity = async (c: Client, kind: 'file' | 'folder', id: string) => {
    const { data, error } = await c.rpc('item_activity', { p_kind: kind, p_id: id });
    if (error) return { code: error.code };
    return (data as Entry[]).map((e) => [e.action, e.actor_id, e.item_id]);
  };

  it('records who did what, for exactly the people who can see the item', async () => {
    const box = await folder(editor, 'Activity box', shared.id);
    const up = await file(editor, 'a.txt', box.id, 'a');
    await editor.from('files').update({ name: 'b.txt' }).eq('id', up.id);
    await editor.from('files').update({ folder_id: sub.id }).eq('id', up.id);
    await rpc(editor, 'trash_items', { p_files: [up.id] });
    await rpc(owner, 'restore_items', { p_files: [up.id] });
    const g = await share(owner, 'file', up.id, stranger.email, 'viewer');
    await rpc(owner, 'unshare', { p_grant: (g.data as { grant_id: string }).grant_id });

    const expected = [
      ['unshared', owner.uid, up.id],
      ['shared', owner.uid, up.id],
      ['restored', owner.uid, up.id],
      ['trashed', editor.uid, up.id],
      ['moved', editor.uid, up.id],
      ['renamed', editor.uid, up.id],
      ['uploaded', editor.uid, up.id],
    ];
    for (const p of [owner, editor, viewer]) {
      expect(await activity(p, 'file', up.id)).toEqual(expected);
    }
    // A folder's activity takes in what is below it.
    expect(await activity(viewer, 'folder', box.id)).toEqual([['created', editor.uid, box.id]]);
    expect((await activity(viewer, 'folder', shared.id)) as unknown[]).toEqual(
      expect.arrayContaining([
        ['uploaded', editor.uid, up.id],
        ['created', editor.uid, box.id],
      ]),
    );
    for (const p of [stranger, pending, revoked]) {
      expect(await activity(p, 'file', up.id)).toEqual([]);
      expect((await p.from('activity').select('id')).data).toEqual([]);
    }
    expect(await activity(anon, 'file', up.id)).toMatchObject({ code: '42501' });
    const forged = await editor.from('activity').insert({
      item_kind: 'file',
      item_id: up.id,
      owner_id: owner.uid,
      action: 'trashed',
    });
    expect(forged.error?.code).toBe('42501');
    // Someone else's private item: not a trace of it.
    expect(await activity(editor, 'file', secret.id)).toEqual([]);
  });

  it('keeps 90 days: older entries are not shown, and the scheduled purge deletes them', async () => {
    const f = await file(owner, 'old-news.txt', shared.id, 'o');
    await owner.from('files').update({ name: 'older-news.txt' }).eq('id', f.id);
    await server.db.query(
      `update public.activity set at = now() - interval '91 days' where item_id = $1`,
      [f.id],
    );
    expect(await activity(owner, 'file', f.id)).toEqual([]);
    expect(
      (await rpc<unknown[]>(owner, 'purge_activity').catch(
        (e: { code: string }) => e.code,
      )) as unknown,
    ).toBe('42501');
    const res = await fetch(`${server.url}/functions/v1/trash`, {
      method: 'POST',
      headers: {
        apikey: server.serviceRoleKey,
        authorization: `Bearer ${server.serviceRoleKey}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ action: 'purge' }),
    });
    expect(res.status).toBe(200);
    const { rows } = await server.db.query('select 1 from public.activity where item_id = $1', [
      f.id,
    ]);
    expect(rows).toEqual([]);
  });
});

describe('Transfer of ownership', () => {
  it('hands an item to an Editor: theirs, in their quota; the old owner becomes an Editor', async () => {
    const a = await newPerson(server);
    const b = await newPerson(server);
    const v = await newPerson(server);
    const project = await folder(a, 'Project', (await folder(a, 'Work')).id);
    const inner = await folder(a, 'Inner', project.id);
    const spec = await file(a, 'spec.txt', inner.id, 'spec!');
    await share(a, 'folder', project.id, b.email, 'editor');
    await share(a, 'folder', project.id, v.email, 'viewer');

    // Not by an Editor, not to a Viewer or a stranger.
    const byEditor = await b.rpc('transfer_ownership', {
      p_kind: 'folder',
      p_id: project.id,
      p_to: b.uid,
    });
    expect(byEditor.error).toMatchObject({ code: '42501', hint: 'not_owner' });
    for (const to of [v.uid, stranger.uid]) {
      const refused = await a.rpc('transfer_ownership', {
        p_kind: 'folder',
        p_id: project.id,
        p_to: to,
      });
      expect(refused.error).toMatchObject({ code: '22023', hint: 'not_editor' });
    }

    expect(await usage(a)).toBe(5);
    const done = await rpc<Array<{ owner_id: string }>>(a, 'transfer_ownership', {
      p_kind: 'folder',
      p_id: project.id,
      p_to: b.uid,
    });
    expect(done[0]?.owner_id).toBe(b.uid);
    expect(await usage(a)).toBe(0);
    expect(await usage(b)).toBe(5);
    expect(await get(b, 'folders', project.id)).toMatchObject({
      owner_id: b.uid,
      parent_id: null,
      ancestors: [],
    });
    expect(await get(b, 'files', spec.id)).toMatchObject({
      owner_id: b.uid,
      ancestors: [project.id, inner.id],
    });
    expect(await rpc(a, 'my_role', { p_kind: 'file', p_id: spec.id })).toBe('editor');
    expect(await rpc(v, 'my_role', { p_kind: 'file', p_id: spec.id })).toBe('viewer');
    for (const p of [a, b, v]) expect(await download(p, spec)).toBe('spec!');
    // The old owner no longer manages access; the new owner does.
    const share1 = await share(a, 'folder', project.id, stranger.email, 'viewer');
    expect(share1.error).toMatchObject({ code: '42501' });
    await rpc(b, 'unshare', { p_grant: await grantId(project.id, a.email) });
    // The object's path still starts with the old owner's id: it gives them nothing now.
    expect(await download(a, spec)).toBe('refused');
    expect(await get(a, 'files', spec.id)).toBeNull();
    // The new owner deletes it forever: objects and rows go.
    await rpc(b, 'trash_items', { p_folders: [project.id] });
    const gone = await trashFunction(b, { action: 'empty' });
    expect(gone.data).toEqual({ deleted: 1, objects: 1 });
    const { rows } = await server.db.query(
      `select 1 from storage.objects where bucket_id = 'files' and name = $1`,
      [spec.object_path],
    );
    expect(rows).toEqual([]);
  });
});

describe('Quota of a shared folder', () => {
  it('an Editor’s upload is refused with the owner’s quota message when the owner is full', async () => {
    const a = await newPerson(server);
    const b = await newPerson(server);
    const box = await folder(a, 'Full');
    await share(a, 'folder', box.id, b.email, 'editor');
    const big = 10 * 1024 ** 3;
    const refused = await b
      .rpc('begin_upload', { p_folder_id: box.id, p_name: 'huge.bin', p_size: big + 1 })
      .single();
    expect(refused.error).toMatchObject({
      code: 'P0001',
      hint: 'quota_exceeded',
      message: 'The owner’s storage is full'.replace('’', "'"),
    });
    expect(refused.error?.details ?? '').not.toMatch(/\d/);
    const own = await b
      .rpc('begin_upload', { p_folder_id: null, p_name: 'huge.bin', p_size: big + 1 })
      .single();
    expect(own.error).toMatchObject({ hint: 'quota_exceeded', message: 'Storage quota exceeded' });
  });
});

describe('2-step verification of the person shared with', () => {
  it('once they turn it on, shared items show only to their sessions that passed it', async () => {
    const p = await newPerson(server);
    await share(owner, 'folder', shared.id, p.email, 'editor');
    const enrolled = await p.auth.mfa.enroll({ factorType: 'totp' });
    if (enrolled.error) throw enrolled.error;
    const code = () =>
      new TOTP({
        secret: Secret.fromBase32(enrolled.data.totp.secret),
        algorithm: 'SHA1',
        digits: 6,
        period: 30,
      }).generate();
    const verified = await p.auth.mfa.challengeAndVerify({
      factorId: enrolled.data.id,
      code: code(),
    });
    expect(verified.error).toBeNull();
    expect(await download(p, doc)).toBe('doc');

    const laptop = memoryClient(server);
    await laptop.auth.signInWithPassword({ email: p.email, password: 'correct horse battery' });
    expect(await names(laptop, 'files')).toEqual([]);
    expect(await download(laptop, doc)).toBe('refused');
    expect(await rpc(laptop, 'shared_with_me')).toEqual([]);
    expect(await rpc(laptop, 'my_role', { p_kind: 'folder', p_id: shared.id })).toBeNull();
    const list = await laptop.rpc('list_access', { p_kind: 'folder', p_id: shared.id });
    expect(list.error).toMatchObject({ code: '42501' });
    const upload = await laptop
      .rpc('begin_upload', { p_folder_id: shared.id, p_name: 'aal1.txt', p_size: 1 })
      .single();
    expect(upload.error?.code).toBe('42501');
  });
});
