/**
 * Drive's backend: versions of a file (backend/migrations/20261127001500_versions.sql and
 * 20261127001600_versions_calls.sql) — a replacement under way leaves readers the old content
 * until it finishes; list, preview and download for everyone who reads the file; restore and
 * delete for the owner and Editors only; the owner's quota; the retention's pruning; new and
 * deleted versions announced to everyone who reads the file (20261128002000_version_deletes_live.sql).
 */
import type { Client } from '@app/backend-sdk';
import type { RunningServer } from '@app/backend-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  file,
  folder,
  newPerson,
  type Row,
  rpc,
  startDriveServer,
  trashFunction,
  usage,
} from './support';

type Person = Client & { uid: string; email: string };
type Version = {
  id: string;
  size: number;
  uploaded_by: string;
  uploader_name: string | null;
  is_current: boolean;
  restored_from: string | null;
  object_path: string;
};
type Begun = { id: string; object_path: string };

let server: RunningServer;
let owner: Person;
let editor: Person;
let viewer: Person;
let stranger: Person;
let team: Row;

async function share(item: Row, to: Person, role: 'editor' | 'viewer') {
  await rpc(owner, 'share_with', {
    p_kind: 'folder',
    p_id: item.id,
    p_email: to.email,
    p_role: role,
  });
}

/** Starts a new version of `fileId` and stores its bytes, without finishing it. */
async function stage(c: Client, fileId: string, body: string): Promise<Begun> {
  const { data, error } = await c
    .rpc('begin_version', { p_file_id: fileId, p_size: body.length, p_mime_type: 'text/plain' })
    .single();
  if (error) throw error;
  const begun = data as Begun;
  const up = await c.storage
    .from('files')
    .upload(begun.object_path, new Blob([body], { type: 'text/plain' }));
  if (up.error) throw up.error;
  return begun;
}

/** A new version, the way Drive's uploader makes one: begin, the object, finish. */
async function replace(c: Client, fileId: string, body: string): Promise<Row> {
  const begun = await stage(c, fileId, body);
  return rpc<Row>(c, 'finish_version', { p_version: begun.id });
}

const versions = (c: Client, fileId: string) =>
  rpc<Version[]>(c, 'list_versions', { p_file_id: fileId });

async function content(c: Client, fileId: string) {
  const row = (await c.from('files').select('object_path').eq('id', fileId).single()).data as {
    object_path: string;
  };
  return read(c, row.object_path);
}

async function read(c: Client, path: string) {
  const { data, error } = await c.storage.from('files').download(path);
  return error ? null : await (data as Blob).text();
}

const stored = async (path: string) =>
  (
    await server.db.query<{ n: number }>(
      "select count(*)::int as n from storage.objects where bucket_id = 'files' and name = $1",
      [path],
    )
  ).rows[0]?.n;

/** The ids named by the `change` messages sent on `drive:<uid>` since the last call (taken). */
async function heard(p: Person): Promise<unknown[]> {
  const { rows } = await server.db.query<{ payload: { ids?: unknown } }>(
    `delete from realtime.messages where topic = $1 and extension = 'broadcast' and event = 'change'
     returning payload`,
    [`drive:${p.uid}`],
  );
  return rows.map((r) => r.payload.ids);
}

beforeAll(async () => {
  server = await startDriveServer();
  [owner, editor, viewer, stranger] = await Promise.all([
    newPerson(server),
    newPerson(server),
    newPerson(server),
    newPerson(server),
  ]);
  await owner.from('profiles').update({ display_name: 'Olga' }).eq('id', owner.uid);
  await editor.from('profiles').update({ display_name: 'Ed' }).eq('id', editor.uid);
  team = await folder(owner, 'Team');
  await share(team, editor, 'editor');
  await share(team, viewer, 'viewer');
});
afterAll(async () => {
  await server?.stop();
});

describe('versions', () => {
  it('leaves readers the old content until a new version finishes, then switches at once', async () => {
    const f = await file(owner, 'plan.txt', team.id, 'one');
    const begun = await stage(editor, f.id, 'two!');
    // Stored, not finished: everyone still reads the first version.
    expect(await content(viewer, f.id)).toBe('one');
    expect(await content(owner, f.id)).toBe('one');
    expect((await versions(viewer, f.id)).length).toBe(1);
    const done = await rpc<Row>(editor, 'finish_version', { p_version: begun.id });
    expect(done.size).toBe(4);
    expect(await content(viewer, f.id)).toBe('two!');
    const list = await versions(viewer, f.id);
    expect(list.map((v) => [v.size, v.is_current, v.uploader_name])).toEqual([
      [4, true, 'Ed'],
      [3, false, 'Olga'],
    ]);
    // The older one stays readable to readers of the file, by its own object.
    expect(await read(viewer, list[1]?.object_path as string)).toBe('one');
    expect(await read(stranger, list[1]?.object_path as string)).toBeNull();
    // A finish before the object is stored is refused.
    const { data } = await editor.rpc('begin_version', { p_file_id: f.id, p_size: 5 }).single();
    const early = await editor.rpc('finish_version', { p_version: (data as Begun).id });
    expect(early.error?.hint).toBe('upload_incomplete');
    const activity = await rpc<Array<{ action: string; actor_name: string }>>(
      viewer,
      'item_activity',
      { p_kind: 'file', p_id: f.id },
    );
    expect(activity[0]).toMatchObject({ action: 'version_uploaded', actor_name: 'Ed' });
  });

  it('lets owner and Editor restore and delete, Viewers only read, strangers nothing', async () => {
    const f = await file(owner, 'matrix.txt', team.id, 'v1');
    await replace(owner, f.id, 'v2');
    const [, first] = await versions(owner, f.id);
    const firstId = (first as Version).id;

    expect(await versions(stranger, f.id)).toEqual([]);
    for (const [who, hint] of [
      [viewer, 'not_editor'],
      [stranger, 'version_not_found'],
    ] as const) {
      expect((await who.rpc('restore_version', { p_version: firstId })).error?.hint).toBe(hint);
      expect((await who.rpc('begin_version', { p_file_id: f.id, p_size: 1 })).error?.hint).toBe(
        hint === 'version_not_found' ? 'not_found' : hint,
      );
      const del = await trashFunction(who, { action: 'version', version: firstId });
      // The database's refusal as it is: 403 for a Viewer, 404 for a stranger — never a 5xx.
      const status = (del.error as { context?: Response } | null)?.context?.status;
      expect(status).toBe(hint === 'not_editor' ? 403 : 404);
    }
    expect((await versions(viewer, f.id)).length).toBe(2);

    // The Editor restores the first: a new current version with its content, history kept.
    await rpc(editor, 'restore_version', { p_version: firstId });
    expect(await content(viewer, f.id)).toBe('v1');
    const list = await versions(owner, f.id);
    expect(list.map((v) => [v.size, v.is_current, v.restored_from])).toEqual([
      [2, true, firstId],
      [2, false, null],
      [2, false, null],
    ]);
    const current = list[0] as Version;
    const activity = await rpc<Array<{ action: string }>>(owner, 'item_activity', {
      p_kind: 'file',
      p_id: f.id,
    });
    expect(activity[0]?.action).toBe('version_restored');

    // The current version is never deleted; the first goes, its object stays (the current
    // one shares it); then the second goes with its object.
    const refused = await trashFunction(owner, { action: 'version', version: current.id });
    expect(refused.error).not.toBeNull();
    expect((await owner.rpc('begin_delete_version', { p_version: current.id })).error?.hint).toBe(
      'version_current',
    );
    const gone = await trashFunction(editor, { action: 'version', version: firstId });
    expect(gone.data).toEqual({ deleted: 0, objects: 0, versions: 1 });
    expect(await stored(current.object_path)).toBe(1);
    const second = list[1] as Version;
    const gone2 = await trashFunction(editor, { action: 'version', version: second.id });
    expect(gone2.data).toEqual({ deleted: 0, objects: 1, versions: 1 });
    expect(await stored(second.object_path)).toBe(0);
    expect((await versions(viewer, f.id)).map((v) => v.id)).toEqual([current.id]);
    expect(await content(viewer, f.id)).toBe('v1');
  });

  it('announces a deleted version like a new one: live to everyone who reads the file, and in its activity', async () => {
    const f = await file(owner, 'live.txt', team.id, 'v1');
    await replace(editor, f.id, 'v2');
    const older = (await versions(owner, f.id))[1] as Version;
    const everyone = [owner, editor, viewer, stranger];
    // A new version reaches the owner and the people with access (the file row changed).
    const afterNew = await Promise.all(everyone.map(heard));
    for (const ids of afterNew.slice(0, 3)) expect(ids).toContainEqual([f.id]);
    expect(afterNew[3]).toEqual([]);

    // So does a deleted one, once, and nothing else: the stranger hears nothing.
    const gone = await trashFunction(editor, { action: 'version', version: older.id });
    expect(gone.error).toBeNull();
    const afterDelete = await Promise.all(everyone.map(heard));
    expect(afterDelete).toEqual([[[f.id]], [[f.id]], [[f.id]], []]);
    const activity = await rpc<Array<{ action: string; actor_id: string }>>(
      viewer,
      'item_activity',
      {
        p_kind: 'file',
        p_id: f.id,
      },
    );
    expect(activity[0]).toMatchObject({ action: 'version_deleted', actor_id: editor.uid });
    expect(activity[1]?.action).toBe('version_uploaded');

    // A refused delete (the current version) announces nothing.
    const current = (await versions(owner, f.id))[0] as Version;
    expect((await owner.rpc('begin_delete_version', { p_version: current.id })).error?.hint).toBe(
      'version_current',
    );
    expect(await Promise.all(everyone.map(heard))).toEqual([[], [], [], []]);
  });

  it('counts versions against the owner’s quota, an Editor’s upload too, once per object', async () => {
    const own = await newPerson(server);
    const f = await file(own, 'q.txt', null, '12345');
    expect(await usage(own)).toBe(5);
    await replace(own, f.id, '1234567');
    expect(await usage(own)).toBe(12);
    const [, older] = await versions(own, f.id);
    await rpc(own, 'restore_version', { p_version: (older as Version).id });
    expect(await usage(own)).toBe(12); // restored: the same object, counted once
    // Over the quota (an older version made to hold half of it, the new one the rest): refused at the start.
    const seven = (await versions(own, f.id)).find((v) => v.size === 7) as Version;
    await server.db.query('update public.file_versions set size = $1 where id = $2', [
      5368709120,
      seven.id,
    ]);
    const big = await own.rpc('begin_version', { p_file_id: f.id, p_size: 5368709120 });
    expect(big.error?.hint).toBe('quota_exceeded');

    const before = await usage(owner);
    const edited = await file(owner, 'shared-q.txt', team.id, 'ab');
    await replace(editor, edited.id, 'abcdef');
    expect(await usage(owner)).toBe(before + 2 + 6);
    expect(await usage(editor)).toBe(0);
  });

  it('prunes versions past the owner’s retention, objects included, never the current one', async () => {
    const own = await newPerson(server);
    const f = await file(own, 'r.txt', null, 'a');
    await replace(own, f.id, 'bb');
    await replace(own, f.id, 'ccc');
    await replace(own, f.id, 'dddd');
    const all = await versions(own, f.id);
    expect(all.map((v) => v.size)).toEqual([4, 3, 2, 1]);
    // Defaults: 30 days, 100 versions — the oldest is 31 days old.
    await server.db.query(
      "update public.file_versions set created_at = now() - interval '31 days' where id = $1",
      [all[3]?.id],
    );
    const first = await trashFunction(own, { action: 'purge' });
    expect(first.data).toEqual({ deleted: 0, objects: 1, versions: 1 });
    expect(await stored(all[3]?.object_path as string)).toBe(0);
    // Keep the last 2: the 2-byte one goes.
    const set = await own.from('version_settings').upsert({ keep_versions: 2 });
    expect(set.error).toBeNull();
    const second = await trashFunction(own, { action: 'purge' });
    expect(second.data).toEqual({ deleted: 0, objects: 1, versions: 1 });
    expect((await versions(own, f.id)).map((v) => v.size)).toEqual([4, 3]);
    expect(await usage(own)).toBe(7);
    // Nobody sets another person's retention.
    const other = await stranger
      .from('version_settings')
      .upsert({ owner_id: own.uid, keep_days: 1 });
    expect(other.error).not.toBeNull();
  });

  it('deleting a file forever removes every version’s object', async () => {
    const own = await newPerson(server);
    const f = await file(own, 'gone.txt', null, 'x');
    await replace(own, f.id, 'yy');
    const paths = (await versions(own, f.id)).map((v) => v.object_path);
    await rpc(own, 'trash_items', { p_files: [f.id] });
    const done = await trashFunction(own, { action: 'delete', files: [f.id], folders: [] });
    expect(done.data).toEqual({ deleted: 1, objects: 2 });
    for (const p of paths) expect(await stored(p)).toBe(0);
    expect(await usage(own)).toBe(0);
  });
});
