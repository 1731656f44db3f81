/**
 * Drive's backend (apps/web/backend): Trash, stars and Recent, through the SDK against a real
 * backend-server with Drive's migrations and functions — as two users, so row level security
 * is what is tested.
 */
import type { RunningServer } from '@app/backend-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scheduleTrashPurge } from '../../scripts/trash-purge';
import {
  file,
  folder,
  get,
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

describe('Trash', () => {
  it('moves a folder to the Trash with everything in it, and restores it all', async () => {
    const a = await newUser();
    const top = await folder(a, 'Projects');
    const sub = await folder(a, 'Old', top.id);
    const inSub = await file(a, 'notes.txt', sub.id);
    const inTop = await file(a, 'plan.txt', top.id);
    const before = (await get(a, 'files', inTop.id))?.updated_at;

    expect(await rpc<number>(a, 'trash_items', { p_folders: [top.id] })).toBe(1);
    for (const [table, id, via] of [
      ['folders', top.id, null],
      ['folders', sub.id, top.id],
      ['files', inSub.id, top.id],
      ['files', inTop.id, top.id],
    ] as const) {
      const row = await get(a, table, id);
      expect(row?.trashed_at, `${table} ${id}`).not.toBeNull();
      expect(row?.trashed_via).toBe(via);
    }
    // Going to the Trash is not a change of the file.
    expect((await get(a, 'files', inTop.id))?.updated_at).toBe(before);
    // Only the folder is an entry of the Trash; nothing of it is found by search.
    expect(await rpc(a, 'trash_roots')).toEqual([{ kind: 'folder', id: top.id }]);
    expect(await rpc(a, 'search_files', { q: 'notes' })).toEqual([]);

    const restored = await rpc<Row[]>(a, 'restore_items', { p_folders: [top.id] });
    expect(restored).toEqual([
      {
        kind: 'folder',
        id: top.id,
        name: 'Projects',
        parent_id: null,
        renamed: false,
        relocated: false,
      },
    ]);
    for (const [table, id] of [
      ['folders', top.id],
      ['folders', sub.id],
      ['files', inSub.id],
      ['files', inTop.id],
    ] as const) {
      expect((await get(a, table, id))?.trashed_at, `${table} ${id}`).toBeNull();
    }
    expect(await rpc(a, 'trash_roots')).toEqual([]);
  });

  it('keeps an item deleted before its folder as an entry of its own', async () => {
    const a = await newUser();
    const top = await folder(a, 'Top');
    const early = await file(a, 'early.txt', top.id);
    await rpc(a, 'trash_items', { p_files: [early.id] });
    await rpc(a, 'trash_items', { p_folders: [top.id] });
    const roots = await rpc<Array<{ id: string }>>(a, 'trash_roots');
    expect(roots.map((r) => r.id).sort()).toEqual([early.id, top.id].sort());
    await rpc(a, 'restore_items', { p_folders: [top.id] });
    expect((await get(a, 'files', early.id))?.trashed_at).not.toBeNull();
  });

  it('selecting a folder and something inside it makes one entry', async () => {
    const a = await newUser();
    const top = await folder(a, 'Top');
    const sub = await folder(a, 'Sub', top.id);
    const inner = await file(a, 'in.txt', sub.id);
    expect(
      await rpc<number>(a, 'trash_items', { p_folders: [sub.id, top.id], p_files: [inner.id] }),
    ).toBe(1);
    expect(await rpc(a, 'trash_roots')).toEqual([{ kind: 'folder', id: top.id }]);
  });

  it('restores under a free name, and to My files when the original folder is gone', async () => {
    const a = await newUser();
    const old = await file(a, 'report.pdf', null);
    await rpc(a, 'trash_items', { p_files: [old.id] });
    // The name is free again while the first one is in the Trash: no "report (1).pdf".
    const again = await file(a, 'report.pdf', null);
    expect(again.name).toBe('report.pdf');
    const back = await rpc<Row[]>(a, 'restore_items', { p_files: [old.id] });
    expect(back[0]).toMatchObject({ name: 'report (1).pdf', renamed: true, relocated: false });

    const place = await folder(a, 'Place');
    const inside = await file(a, 'inside.txt', place.id);
    await rpc(a, 'trash_items', { p_files: [inside.id] });
    await rpc(a, 'trash_items', { p_folders: [place.id] });
    const moved = await rpc<Row[]>(a, 'restore_items', { p_files: [inside.id] });
    expect(moved[0]).toMatchObject({ parent_id: null, relocated: true, renamed: false });
    expect((await get(a, 'files', inside.id))?.folder_id).toBeNull();
  });

  it('sends what lands in a trashed folder to the Trash with it', async () => {
    const a = await newUser();
    const gone = await folder(a, 'Gone');
    await rpc(a, 'trash_items', { p_folders: [gone.id] });
    const late = await file(a, 'late.txt', gone.id);
    const row = await get(a, 'files', late.id);
    expect(row?.trashed_at).not.toBeNull();
    expect(row?.trashed_via).toBe(gone.id);
  });

  it('deletes forever through the function: objects gone, rows gone, quota freed', async () => {
    const a = await newUser();
    const keep = await file(a, 'keep.txt', null, 'k');
    const top = await folder(a, 'Bin');
    const deep = await folder(a, 'Deep', top.id);
    const f1 = await file(a, 'one.txt', deep.id, '1'.repeat(100));
    const f2 = await file(a, 'two.txt', null, '2'.repeat(50));
    expect(await usage(a)).toBe(151);
    await rpc(a, 'trash_items', { p_files: [f2.id], p_folders: [top.id] });
    // Still counted while in the Trash.
    expect(await usage(a)).toBe(151);

    // Not in the Trash: left alone.
    const untouched = await trashFunction(a, { action: 'delete', files: [keep.id] });
    expect(untouched.data).toEqual({ deleted: 0, objects: 0 });
    expect(await get(a, 'files', keep.id)).not.toBeNull();

    const gone = await trashFunction(a, { action: 'delete', files: [f2.id], folders: [top.id] });
    expect(gone.error).toBeNull();
    expect(gone.data).toEqual({ deleted: 2, objects: 2 });
    expect(await usage(a)).toBe(1);
    expect(await get(a, 'files', f1.id)).toBeNull();
    expect(await get(a, 'folders', deep.id)).toBeNull();
    for (const f of [f1, f2]) {
      const { error } = await a.storage.from('files').download(f.object_path as string);
      expect(error, String(f.name)).not.toBeNull();
    }
    const objects = await server.db.query<{ n: number }>(
      "select count(*)::int as n from storage.objects where bucket_id = 'files' and name like $1",
      [`${a.uid}/%`],
    );
    expect(objects.rows[0]?.n).toBe(1);
  });

  it('empties itself of entries older than 30 days (purge), and Empty Trash takes the rest', async () => {
    const a = await newUser();
    const old = await file(a, 'old.txt', null);
    const recent = await file(a, 'recent.txt', null);
    await rpc(a, 'trash_items', { p_files: [old.id, recent.id] });
    await server.db.query(
      "update public.files set trashed_at = now() - interval '31 days' where id = $1",
      [old.id],
    );
    const purged = await trashFunction(a, { action: 'purge' });
    expect(purged.data).toEqual({ deleted: 1, objects: 1, versions: 0 });
    expect(await get(a, 'files', old.id)).toBeNull();
    expect(await get(a, 'files', recent.id)).not.toBeNull();
    const emptied = await trashFunction(a, { action: 'empty' });
    expect(emptied.data).toEqual({ deleted: 1, objects: 1 });
    expect(await usage(a)).toBe(0);
  });

  it('a scheduler with the service role purges every user’s expired entries', async () => {
    const a = await newUser();
    const b = await newUser();
    const fa = await file(a, 'a.txt', null);
    const fb = await file(b, 'b.txt', null);
    const fresh = await file(b, 'fresh.txt', null);
    await rpc(a, 'trash_items', { p_files: [fa.id] });
    await rpc(b, 'trash_items', { p_files: [fb.id, fresh.id] });
    await server.db.query(
      "update public.files set trashed_at = now() - interval '40 days' where id = any($1)",
      [[fa.id, fb.id]],
    );
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
    const body = (await res.json()) as { deleted: number };
    expect(body.deleted).toBeGreaterThanOrEqual(2);
    const left = await server.db.query<{ id: string }>(
      'select id from public.files where id = any($1)',
      [[fa.id, fb.id, fresh.id]],
    );
    expect(left.rows.map((r) => r.id)).toEqual([fresh.id]);
  });

  it('the schedule of `pnpm start` purges expired entries as the service role', async () => {
    const a = await newUser();
    const old = await file(a, 'scheduled.txt', null);
    await rpc(a, 'trash_items', { p_files: [old.id] });
    await server.db.query(
      "update public.files set trashed_at = now() - interval '45 days' where id = $1",
      [old.id],
    );
    const logged: string[] = [];
    const stop = scheduleTrashPurge(server.url, server.serviceRoleKey, {
      log: (m) => logged.push(m),
    });
    try {
      await expect.poll(() => get(a, 'files', old.id), { timeout: 10_000 }).toBeNull();
      await expect
        .poll(() => logged.join('\n'))
        .toMatch(/^Trash purge: \d+ entries older than 30 days deleted\.$/);
    } finally {
      stop();
    }
  });

  it('no one else can trash, restore or delete your items', async () => {
    const a = await newUser();
    const b = await newUser();
    const mine = await file(a, 'mine.txt', null);
    const dir = await folder(a, 'Mine');
    expect(await rpc<number>(b, 'trash_items', { p_files: [mine.id], p_folders: [dir.id] })).toBe(
      0,
    );
    expect((await get(a, 'files', mine.id))?.trashed_at).toBeNull();

    await rpc(a, 'trash_items', { p_files: [mine.id] });
    expect(await rpc(b, 'restore_items', { p_files: [mine.id] })).toEqual([]);
    expect(await rpc(b, 'trash_roots')).toEqual([]);
    const attempt = await trashFunction(b, { action: 'delete', files: [mine.id] });
    expect(attempt.data).toEqual({ deleted: 0, objects: 0 });
    const emptied = await trashFunction(b, { action: 'empty' });
    expect(emptied.data).toEqual({ deleted: 0, objects: 0 });
    expect((await get(a, 'files', mine.id))?.trashed_at).not.toBeNull();
    const { error } = await a.storage.from('files').download(mine.object_path as string);
    expect(error).toBeNull();
  });

  it('refuses a bad request or a missing session plainly', async () => {
    const a = await newUser();
    const bad = await trashFunction(a, { action: 'delete', files: ['not-a-uuid'] });
    expect((bad.error as { status?: number } | null)?.status).toBe(400);
    const res = await fetch(`${server.url}/functions/v1/trash`, {
      method: 'POST',
      // Signed out: the anon key only.
      headers: {
        apikey: server.anonKey,
        authorization: `Bearer ${server.anonKey}`,
        'content-type': 'application/json',
      },
      body: '{"action":"empty"}',
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: 'unauthorized' });
  });

  it('a trashed file’s share link no longer opens', async () => {
    const a = await newUser();
    const shared = await file(a, 'shared.txt', null);
    const share = await a
      .from('shares')
      .insert({ file_id: shared.id, expires_at: new Date(Date.now() + 3600_000).toISOString() })
      .select()
      .single();
    const token = (share.data as { token: string }).token;
    await rpc(a, 'trash_items', { p_files: [shared.id] });
    const res = await fetch(`${server.url}/functions/v1/share`, {
      method: 'POST',
      headers: {
        apikey: server.anonKey,
        authorization: `Bearer ${server.anonKey}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ token }),
    });
    expect(res.status).toBe(404);
    await res.body?.cancel();
  });
});

describe('Stars and Recent', () => {
  it('a star does not change the file’s date; starred items are listed', async () => {
    const a = await newUser();
    const f = await file(a, 'star.txt', null);
    const starred = await a
      .from('files')
      .update({ starred_at: new Date().toISOString() })
      .eq('id', f.id)
      .select()
      .single();
    expect((starred.data as Row).updated_at).toBe(f.updated_at);
    const list = await a.from('files').select('id').not('starred_at', 'is', null);
    expect(list.data).toEqual([{ id: f.id }]);
  });

  it('Recent lists what was opened or changed last, only the caller’s', async () => {
    const a = await newUser();
    const b = await newUser();
    const first = await file(a, 'first.txt', null);
    const second = await file(a, 'second.txt', null);
    const order = async () => (await rpc<Row[]>(a, 'recent_files')).map((r) => r.name);
    expect(await order()).toEqual(['second.txt', 'first.txt']);
    await rpc(a, 'record_open', { p_file_id: first.id });
    expect(await order()).toEqual(['first.txt', 'second.txt']);
    // Someone else cannot record opens of my files, nor see them.
    const { error } = await b.rpc('record_open', { p_file_id: second.id });
    expect(error).not.toBeNull();
    expect(await rpc(b, 'recent_files')).toEqual([]);
    await rpc(a, 'trash_items', { p_files: [first.id] });
    expect(await order()).toEqual(['second.txt']);
  });
});
