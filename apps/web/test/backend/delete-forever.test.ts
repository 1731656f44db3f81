/**
 * Drive's backend: deleting from the Trash forever (backend/migrations/
 * 20261127000100_delete_forever.sql and functions/trash) — what goes and what stays, and that
 * a restore, a move or an upload at the same time never leaves a row without its stored
 * object, an object without its row, or an item in a folder that no longer exists.
 */
import type { Client } from '@app/backend-sdk';
import type { RunningServer } from '@app/backend-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  beginUpload,
  file,
  folder,
  get,
  memoryClient,
  newUser as newUserOf,
  type Row,
  rpc,
  startDriveServer,
  trashFunction,
  usage,
} from './support';

let server: RunningServer;
const newUser = () => newUserOf(server);

beforeAll(async () => {
  server = await startDriveServer();
});
afterAll(async () => {
  await server?.stop();
});

/** What must never happen to a user's drive, whatever ran at the same time. */
async function orphans(uid: string) {
  const q = async (sql: string) =>
    (await server.db.query<{ name: string }>(sql, [uid])).rows.map((r) => r.name).sort();
  return {
    objectsWithoutRow: await q(
      `select o.name from storage.objects o
        where o.bucket_id = 'files' and o.name like $1 || '/%'
          and not exists (select 1 from public.files f where f.object_path = o.name)`,
    ),
    readyRowsWithoutObject: await q(
      `select f.name from public.files f
        where f.owner_id = $1 and f.status = 'ready'
          and not exists (select 1 from storage.objects o
                           where o.bucket_id = 'files' and o.name = f.object_path)`,
    ),
    liveInTrashedFolder: await q(
      `select c.name from public.files c join public.folders p on p.id = c.folder_id
        where c.owner_id = $1 and c.trashed_at is null and p.trashed_at is not null
       union all
       select c.name from public.folders c join public.folders p on p.id = c.parent_id
        where c.owner_id = $1 and c.trashed_at is null and p.trashed_at is not null`,
    ),
  };
}
const NONE = { objectsWithoutRow: [], readyRowsWithoutObject: [], liveInTrashedFolder: [] };

const download = async (c: Client, row: Row) =>
  (await c.storage.from('files').download(row.object_path as string)).data?.text() ?? null;

describe('Delete forever', () => {
  it('takes what went to the Trash with a folder, and leaves the entries deleted before it', async () => {
    const a = await newUser();
    const top = await folder(a, 'Top');
    const went = await folder(a, 'Went', top.id);
    const inTop = await file(a, 'in-top.txt', top.id, 't'.repeat(10));
    const deep = await file(a, 'deep.txt', went.id, 'd'.repeat(20));
    const early = await file(a, 'early.txt', top.id, 'e'.repeat(40));
    const earlyDeep = await file(a, 'early-deep.txt', went.id, 'f'.repeat(80));
    const sub = await folder(a, 'Sub', top.id);
    const inSub = await file(a, 'in-sub.txt', sub.id, 's'.repeat(160));
    await rpc(a, 'trash_items', { p_files: [early.id, earlyDeep.id] });
    await rpc(a, 'trash_items', { p_folders: [sub.id] });
    await rpc(a, 'trash_items', { p_folders: [top.id] });
    expect(await usage(a)).toBe(310);

    const gone = await trashFunction(a, { action: 'delete', folders: [top.id] });
    expect(gone.error).toBeNull();
    expect(gone.data).toEqual({ deleted: 1, objects: 2 });
    for (const [table, row] of [
      ['folders', top],
      ['folders', went],
      ['files', inTop],
      ['files', deep],
    ] as const) {
      expect(await get(a, table, row.id), row.name).toBeNull();
    }
    // The separate entries stay in the Trash, out of the folder that is gone.
    const roots = await rpc<Array<{ kind: string; id: string }>>(a, 'trash_roots');
    expect(roots.map((r) => r.id).sort()).toEqual([early.id, earlyDeep.id, sub.id].sort());
    for (const [table, row, parent] of [
      ['files', early, 'folder_id'],
      ['files', earlyDeep, 'folder_id'],
      ['folders', sub, 'parent_id'],
    ] as const) {
      const now = await get(a, table, row.id);
      expect(now, row.name).toMatchObject({ [parent]: null, trashed_via: null });
      expect(now?.trashed_at, row.name).not.toBeNull();
    }
    // Stepping out of the deleted folder is not a change of the file.
    expect((await get(a, 'files', early.id))?.updated_at).toBe(early.updated_at);
    expect(await usage(a)).toBe(280);

    // …and come back to My files, content and bytes intact.
    const back = await rpc<Row[]>(a, 'restore_items', {
      p_files: [early.id, earlyDeep.id],
      p_folders: [sub.id],
    });
    expect(back.map((r) => [r.name, r.parent_id]).sort()).toEqual([
      ['Sub', null],
      ['early-deep.txt', null],
      ['early.txt', null],
    ]);
    expect((await get(a, 'files', inSub.id))?.trashed_at).toBeNull();
    expect(await download(a, inSub)).toBe('s'.repeat(160));
    expect(await download(a, earlyDeep)).toBe('f'.repeat(80));
    expect(await orphans(a.uid)).toEqual(NONE);
  });

  it('once started, nothing restores, moves into, renames or stores into what is deleted', async () => {
    const a = await newUser();
    const bin = await folder(a, 'Bin');
    const kept = await file(a, 'kept.txt', bin.id, 'k');
    const unfinished = await beginUpload(a, 'unfinished.bin', bin.id, 3);
    const elsewhere = await file(a, 'elsewhere.txt', null, 'x');
    await rpc(a, 'trash_items', { p_folders: [bin.id] });

    // Step 1 of the function alone, as if its storage step were still under way.
    const marked = await rpc<Array<{ object_path: string }>>(a, 'begin_delete_forever', {
      p_folders: [bin.id],
    });
    expect(marked.map((m) => m.object_path).sort()).toEqual(
      [kept.object_path, unfinished.object_path].sort(),
    );

    expect(await rpc(a, 'restore_items', { p_folders: [bin.id] })).toEqual([]);
    const move = await a.from('files').update({ folder_id: bin.id }).eq('id', elsewhere.id);
    expect(move.error).toMatchObject({ code: '23503', hint: 'folder_deleted' });
    expect(move.status).toBe(409);
    const create = await a.from('folders').insert({ name: 'Late', parent_id: bin.id });
    expect(create.error).toMatchObject({ code: '23503', hint: 'folder_deleted' });
    const upload = await a
      .rpc('begin_upload', { p_folder_id: bin.id, p_name: 'late.txt', p_size: 1 })
      .single();
    expect(upload.error).toMatchObject({ code: '23503', hint: 'folder_deleted' });
    const rename = await a.from('files').update({ name: 'renamed.txt' }).eq('id', kept.id);
    expect(rename.error).toMatchObject({ code: '23503', hint: 'item_deleted' });
    const bytes = await a.storage
      .from('files')
      .upload(unfinished.object_path, new Blob(['abc'], { type: 'text/plain' }));
    expect(bytes.error).not.toBeNull();
    expect((await get(a, 'files', elsewhere.id))?.folder_id).toBeNull();

    // The next call finishes the job.
    const done = await trashFunction(a, { action: 'empty' });
    expect(done.data).toEqual({ deleted: 1, objects: 2 });
    expect(await get(a, 'files', kept.id)).toBeNull();
    expect(await download(a, elsewhere)).toBe('x');
    expect(await orphans(a.uid)).toEqual(NONE);
  });

  it('a restore that finished first is left alone by the deletion', async () => {
    const a = await newUser();
    const box = await folder(a, 'Box');
    const inBox = await file(a, 'in-box.txt', box.id, 'b');
    await rpc(a, 'trash_items', { p_folders: [box.id] });
    await rpc(a, 'restore_items', { p_folders: [box.id] });
    const late = await trashFunction(a, { action: 'delete', folders: [box.id] });
    expect(late.data).toEqual({ deleted: 0, objects: 0 });
    expect(await download(a, inBox)).toBe('b');
    expect(await orphans(a.uid)).toEqual(NONE);
  });

  it('a folder moved into a trashed folder goes with it, content included', async () => {
    const a = await newUser();
    const gone = await folder(a, 'Gone');
    await rpc(a, 'trash_items', { p_folders: [gone.id] });
    const moved = await folder(a, 'Moved');
    const inner = await folder(a, 'Inner', moved.id);
    const deep = await file(a, 'deep.txt', inner.id, 'd');
    const moving = await a.from('folders').update({ parent_id: gone.id }).eq('id', moved.id);
    expect(moving.error).toBeNull();
    for (const [table, id] of [
      ['folders', moved.id],
      ['folders', inner.id],
      ['files', deep.id],
    ] as const) {
      expect(await get(a, table, id)).toMatchObject({ trashed_via: gone.id });
    }
    expect(await orphans(a.uid)).toEqual(NONE);
    const done = await trashFunction(a, { action: 'delete', folders: [gone.id] });
    expect(done.data).toEqual({ deleted: 1, objects: 1 });
    expect(await get(a, 'folders', inner.id)).toBeNull();
    expect(await usage(a)).toBe(0);
    expect(await orphans(a.uid)).toEqual(NONE);
  });

  it('restores, moves and uploads racing a delete forever orphan nothing', async () => {
    const a = await newUser();
    const other = memoryDevice(a);
    for (let round = 0; round < 4; round += 1) {
      const target = await folder(a, `Target ${round}`);
      await file(a, 'inside.txt', target.id, 'i');
      const outside = await file(a, `outside-${round}.txt`, null, 'o');
      await rpc(a, 'trash_items', { p_folders: [target.id] });
      const results = await Promise.allSettled([
        trashFunction(a, { action: 'delete', folders: [target.id] }),
        rpc(await other, 'restore_items', { p_folders: [target.id] }),
        (await other).from('files').update({ folder_id: target.id }).eq('id', outside.id),
        file(await other, `new-${round}.txt`, target.id, 'n'),
      ]);
      expect(results[0].status).toBe('fulfilled');
      expect(await orphans(a.uid), `round ${round}`).toEqual(NONE);
      // Either the folder is gone with all of it, or it is back with all of it.
      const left = await get(a, 'folders', target.id);
      if (left) expect(left.trashed_at, `round ${round}`).toBeNull();
    }
  });
});

describe('Rows and stored objects go together, whatever a client sends', () => {
  /** Backdates an unfinished upload past its expiry (24 hours). */
  const expire = (row: Row) =>
    server.db.query(
      `update public.uploads set started_at = now() - interval '25 hours' where file_id = $1`,
      [row.id],
    );

  it('a REST or storage DELETE outside the Trash removes nothing', async () => {
    const a = await newUser();
    const top = await folder(a, 'Keep');
    const inside = await file(a, 'inside.txt', top.id, 'in');
    const loose = await file(a, 'loose.txt', null, 'lo');

    const folders = await a.from('folders').delete().eq('id', top.id).select('id');
    expect(folders.error).toBeNull();
    expect(folders.data).toEqual([]);
    const files = await a.from('files').delete().eq('id', loose.id).select('id');
    expect(files.error).toBeNull();
    expect(files.data).toEqual([]);
    const objects = await a.storage
      .from('files')
      .remove([inside.object_path as string, loose.object_path as string]);
    expect(objects.error).toBeNull();
    expect(objects.data).toEqual([]);

    expect(await get(a, 'folders', top.id)).not.toBeNull();
    expect(await download(a, inside)).toBe('in');
    expect(await download(a, loose)).toBe('lo');
    expect(await orphans(a.uid)).toEqual(NONE);
    // The Trash is the way: then both go.
    await rpc(a, 'trash_items', { p_files: [loose.id], p_folders: [top.id] });
    const gone = await trashFunction(a, { action: 'empty' });
    expect(gone.data).toEqual({ deleted: 2, objects: 2 });
    expect(await get(a, 'files', inside.id)).toBeNull();
    expect(await orphans(a.uid)).toEqual(NONE);
  });

  it('Cancel deletes an unfinished upload; one whose bytes all arrived stays, to be finished', async () => {
    const a = await newUser();
    const partial = await beginUpload(a, 'partial.bin', null, 5);
    const cancelled = await a.from('files').delete().eq('id', partial.id).select('id');
    expect(cancelled.data).toEqual([{ id: partial.id }]);

    const whole = await beginUpload(a, 'whole.txt', null, 5);
    const up = await a.storage.from('files').upload(whole.object_path, new Blob(['whole']));
    expect(up.error).toBeNull();
    const refused = await a.from('files').delete().eq('id', whole.id).select('id');
    expect(refused.data).toEqual([]);
    const ready = await a
      .from('files')
      .update({ status: 'ready' })
      .eq('id', whole.id)
      .select('status')
      .single();
    expect(ready.data).toEqual({ status: 'ready' });
    expect(await download(a, whole)).toBe('whole');
    expect(await orphans(a.uid)).toEqual(NONE);
  });

  it('an expired upload goes, or is finished when its bytes all arrived', async () => {
    const a = await newUser();
    const partial = await beginUpload(a, 'abandoned.bin', null, 1000);
    const whole = await beginUpload(a, 'arrived.txt', null, 7);
    await a.storage.from('files').upload(whole.object_path, new Blob(['arrived']));
    await expire(partial);
    await expire(whole);

    // Reading the usage expires what is due.
    expect(await usage(a)).toBe(7);
    expect(await get(a, 'files', partial.id)).toBeNull();
    expect((await get(a, 'files', whole.id))?.status).toBe('ready');
    expect(await download(a, whole)).toBe('arrived');
    expect(await orphans(a.uid)).toEqual(NONE);
  });

  it('an expired upload whose bytes arrived but no longer fit the quota goes to the Trash, which frees it', async () => {
    const a = await newUser();
    const whole = await beginUpload(a, 'late.txt', null, 4);
    await a.storage.from('files').upload(whole.object_path, new Blob(['late']));
    const big = [await file(a, 'big-1.bin', null, 'b'), await file(a, 'big-2.bin', null, 'b')];
    // The rest of the quota used meanwhile: two files of up to 5 GiB (sizes set past the
    // row triggers), 2 bytes short of the quota.
    await server.db.exec(
      `set session_replication_role = replica;
       update public.files set size = 5368709120 where id = '${big[0]?.id}';
       update public.files set size = public.quota_bytes() - 5368709120 - 2 where id = '${big[1]?.id}';
       set session_replication_role = origin;`,
    );
    await expire(whole);

    await usage(a);
    const late = await get(a, 'files', whole.id);
    expect(late?.status).toBe('uploading');
    expect(late?.trashed_at).not.toBeNull();
    expect(await rpc(a, 'trash_roots')).toEqual([{ kind: 'file', id: whole.id }]);
    const gone = await trashFunction(a, { action: 'empty' });
    expect(gone.data).toEqual({ deleted: 1, objects: 1 });
    expect(await orphans(a.uid)).toEqual(NONE);
    const left = await server.db.query<{ name: string }>(
      `select name from storage.objects where bucket_id = 'files' and name like $1 || '/%'`,
      [a.uid],
    );
    expect(left.rows.map((r) => r.name).sort()).toEqual(big.map((b) => b.object_path).sort());
  });
});

/** A second device of the same user (its own session). */
async function memoryDevice(a: Client & { uid: string }): Promise<Client> {
  const { data } = await a.auth.getSession();
  const device = memoryClient(server);
  const session = data.session as { access_token: string; refresh_token: string };
  const { error } = await device.auth.setSession(session);
  if (error) throw error;
  return device;
}
