/**
 * Drive's backend: the Trash and the activity with sharing, by name
 * (backend/migrations/20261127001100_sharing_activity_names.sql and
 * 20261127001200_sharing_trash.sql) — an Editor's deletion is in the owner's Trash and in the
 * Editor's own view of what they trashed; who did it is told by name to exactly the people
 * who can see the item; restore returns it to its folder while it is shared, else to the
 * owner's My files.
 */
import type { Client } from '@app/backend-sdk';
import type { RunningServer } from '@app/backend-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { file, folder, get, newPerson, type Row, rpc, startDriveServer } from './support';

type Person = Client & { uid: string; email: string };
type Named = { kind: string; id: string; trashed_by: string; name: string };
type Activity = {
  action: string;
  actor_id: string | null;
  actor_name: string | null;
  item_name: string | null;
  from_name: string | null;
  to_name: string | null;
  details: Record<string, unknown>;
};

let server: RunningServer;
let owner: Person;
let editor: Person;
let stranger: Person;
let shared: Row;
let inner: Row;
let grant: string;

async function named(p: Person, name: string) {
  const { error } = await p.from('profiles').update({ display_name: name }).eq('id', p.uid);
  if (error) throw error;
}

/** What the Trash view of `p` lists: their own entries and what they trashed (RLS decides). */
async function trashView(p: Person) {
  const { data, error } = await p
    .from('files')
    .select('id,name,trashed_by')
    .not('trashed_at', 'is', null)
    .is('trashed_via', null)
    .or(`owner_id.eq.${p.uid},trashed_by.eq.${p.uid}`);
  if (error) throw error;
  return (data as Array<{ name: string; trashed_by: string }>).map((r) => r.name).sort();
}

beforeAll(async () => {
  server = await startDriveServer();
  owner = await newPerson(server);
  editor = await newPerson(server);
  stranger = await newPerson(server);
  await named(owner, 'Olga');
  await named(editor, 'Ed');
  await named(stranger, 'Sam');
  shared = await folder(owner, 'Team');
  inner = await folder(owner, 'Inner', shared.id);
  const g = await rpc<Array<{ grant_id: string }>>(owner, 'share_with', {
    p_kind: 'folder',
    p_id: shared.id,
    p_email: editor.email,
    p_role: 'editor',
  });
  grant = g[0]?.grant_id as string;
});
afterAll(async () => {
  await server?.stop();
});

describe('the Trash with sharing', () => {
  it('shows an Editor’s deletion in the owner’s Trash and in the Editor’s own, by name', async () => {
    const t = await file(editor, 'draft.txt', shared.id, 'd');
    const mine = await file(owner, 'owner-only.txt', shared.id, 'o');
    expect(await rpc<number>(editor, 'trash_items', { p_files: [t.id] })).toBe(1);
    expect(await rpc<number>(owner, 'trash_items', { p_files: [mine.id] })).toBe(1);

    expect(await trashView(owner)).toEqual(['draft.txt', 'owner-only.txt']);
    // The Editor's view: what they trashed, not what the owner trashed.
    expect(await trashView(editor)).toEqual(['draft.txt']);
    expect(await trashView(stranger)).toEqual([]);

    const ask = { p_files: [t.id, mine.id] };
    const byOwner = await rpc<Named[]>(owner, 'trashed_by_names', ask);
    expect(byOwner.sort((a, b) => a.name.localeCompare(b.name))).toEqual([
      { kind: 'file', id: t.id, trashed_by: editor.uid, name: 'Ed' },
      { kind: 'file', id: mine.id, trashed_by: owner.uid, name: 'Olga' },
    ]);
    expect(await rpc<Named[]>(editor, 'trashed_by_names', { p_files: [t.id] })).toEqual([
      { kind: 'file', id: t.id, trashed_by: editor.uid, name: 'Ed' },
    ]);
    expect(await rpc(stranger, 'trashed_by_names', ask)).toEqual([]);
    // Not in the Trash: no answer.
    const kept = await file(owner, 'kept.txt', shared.id, 'k');
    expect(await rpc(owner, 'trashed_by_names', { p_files: [kept.id] })).toEqual([]);

    // The Editor restores it: back in its folder, for both.
    const back = await rpc<Row[]>(editor, 'restore_items', { p_files: [t.id] });
    expect(back).toEqual([
      expect.objectContaining({ id: t.id, parent_id: shared.id, relocated: false }),
    ]);
    expect(await get(owner, 'files', t.id)).toMatchObject({
      folder_id: shared.id,
      trashed_at: null,
      trashed_by: null,
    });
    expect(await trashView(editor)).toEqual([]);
  });

  it('returns an Editor’s restore to the owner’s My files when its folder is gone', async () => {
    const place = await folder(owner, 'Place', shared.id);
    const f = await file(editor, 'note.txt', place.id, 'n');
    expect(await rpc<number>(editor, 'trash_items', { p_files: [f.id] })).toBe(1);
    // Its folder goes to the Trash too (by the owner).
    expect(await rpc<number>(owner, 'trash_items', { p_folders: [place.id] })).toBe(1);
    expect(await trashView(editor)).toEqual(['note.txt']);
    const back = await rpc<Row[]>(editor, 'restore_items', { p_files: [f.id] });
    expect(back).toEqual([expect.objectContaining({ id: f.id, parent_id: null, relocated: true })]);
    expect(await get(owner, 'files', f.id)).toMatchObject({ folder_id: null, trashed_at: null });
    // In the owner's My files, out of the shared folder: the Editor no longer sees it.
    expect(await get(editor, 'files', f.id)).toBeNull();
  });
});

describe('the activity, by name', () => {
  it('names who did what, for the people who can see the item only', async () => {
    const f = await file(editor, 'plan.txt', inner.id, 'p');
    await editor.from('files').update({ name: 'plan-v2.txt' }).eq('id', f.id);
    await editor.from('files').update({ folder_id: shared.id }).eq('id', f.id);

    for (const p of [owner, editor]) {
      const rows = await rpc<Activity[]>(p, 'item_activity', {
        p_kind: 'folder',
        p_id: shared.id,
        p_limit: 500,
      });
      const ofPlan = rows.filter((r) => r.item_name === 'plan-v2.txt');
      expect(ofPlan.map((r) => [r.action, r.actor_name])).toEqual([
        ['moved', 'Ed'],
        ['renamed', 'Ed'],
        ['uploaded', 'Ed'],
      ]);
      expect(ofPlan[0]).toMatchObject({ from_name: 'Inner', to_name: 'Team' });
      const created = rows.find((r) => r.action === 'created' && r.item_name === 'Team');
      expect(created).toMatchObject({ actor_id: owner.uid, actor_name: 'Olga' });
    }
    expect(
      await rpc(stranger, 'item_activity', { p_kind: 'folder', p_id: shared.id, p_limit: 500 }),
    ).toEqual([]);
    // The name is given only with an entry the caller may read.
    const { rows } = await server.db.query<{ id: string }>(
      `select id::text from public.activity where item_id = $1 and action = 'renamed'`,
      [f.id],
    );
    const entry = rows[0]?.id;
    const direct = await stranger.rpc('activity_actor_name', { p_entry: entry });
    expect(direct.error).not.toBeNull();
  });

  it('keeps the names from someone whose access was removed', async () => {
    await rpc(owner, 'unshare', { p_grant: grant });
    expect(
      await rpc(editor, 'item_activity', { p_kind: 'folder', p_id: shared.id, p_limit: 500 }),
    ).toEqual([]);
    expect(await rpc(editor, 'trashed_by_names', { p_folders: [shared.id] })).toEqual([]);
  });
});
