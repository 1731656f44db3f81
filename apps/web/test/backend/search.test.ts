/**
 * Drive's backend: search (backend/migrations/20261128001000_search_index.sql,
 * 20261128001100_search_items.sql and functions/search-index) — the text of each format
 * extracted after upload, one ranked search over names and content with highlights, its
 * filters and pages, nothing from the Trash, and nothing the reader cannot see.
 */
import type { Client } from '@app/backend-sdk';
import type { RunningServer } from '@app/backend-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docxOf, pdfOf, pptxOf, xlsxOf } from './search-fixtures';
import { beginUpload, folder, newPerson, type Row, rpc, startDriveServer } from './support';

type Person = Client & { uid: string; email: string };
type Hit = {
  kind: 'file' | 'folder';
  id: string;
  name: string;
  size: number | null;
  owner_id: string;
  snippet: string | null;
  score: number;
};

let server: RunningServer;
let alice: Person;
let bob: Person;
let carol: Person;
const made: Record<string, Row> = {};

/** Uploads bytes the way Drive does: begin_upload, the object, then ready. */
async function upload(
  c: Client,
  name: string,
  body: Uint8Array | string,
  folderId: string | null = null,
) {
  const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body;
  const row = await beginUpload(c, name, folderId, bytes.byteLength);
  const up = await c.storage
    .from('files')
    .upload(row.object_path, new Blob([bytes as Uint8Array<ArrayBuffer>]));
  if (up.error) throw up.error;
  const ready = await c
    .from('files')
    .update({ status: 'ready' })
    .eq('id', row.id)
    .select()
    .single();
  if (ready.error) throw ready.error;
  made[name] = ready.data as Row;
  return ready.data as Row;
}

async function index(c: Client) {
  const { data, error } = await c.functions.invoke('search-index', { body: {} });
  if (error) throw error;
  return data as { indexed: number; failed: number };
}

async function search(c: Client, q: string, filters: Record<string, unknown> = {}) {
  return rpc<Hit[]>(c, 'search_items', { q, ...filters });
}
const names = (hits: Hit[]) => hits.map((h) => h.name);

beforeAll(async () => {
  server = await startDriveServer();
  [alice, bob, carol] = await Promise.all([
    newPerson(server),
    newPerson(server),
    newPerson(server),
  ]);
  await upload(alice, 'notes.md', '# Plans\n\nThe zephyr quarterly plan, then lunch.\n');
  await upload(alice, 'Zephyr.txt', 'nothing to see');
  await upload(alice, 'old-zephyr-draft.txt', 'draft');
  await folder(alice, 'Zephyr projects');
  await upload(alice, 'animals.csv', 'name,count\nwalrus,42\n');
  await upload(alice, 'report.pdf', pdfOf(['Annual report', 'The pangolin population grew.']));
  await upload(alice, 'memo.docx', docxOf(['Dear team,', 'the ocelot & friends arrive']));
  await upload(alice, 'sheet.xlsx', xlsxOf(['species', 'narwhal']));
  await upload(alice, 'deck.pptx', pptxOf(['Welcome', 'axolotl facts']));
  await upload(alice, 'main.ts', 'export const tapir = 1;\n');
  // Not a document: never read.
  await upload(alice, 'photo.png', new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]));
  const result = await index(alice);
  expect(result).toEqual({ indexed: 9, failed: 0 });
});
afterAll(() => server?.stop());

describe('extraction, after upload', () => {
  it('queues each document as it becomes ready, and the function reads each format', async () => {
    const { data } = await alice.from('file_texts').select('file_id, state').neq('state', 'done');
    expect(data).toEqual([]);
    for (const [word, name] of [
      ['pangolin', 'report.pdf'],
      ['ocelot', 'memo.docx'],
      ['narwhal', 'sheet.xlsx'],
      ['axolotl', 'deck.pptx'],
      ['walrus', 'animals.csv'],
      ['quarterly', 'notes.md'],
      ['tapir', 'main.ts'],
    ]) {
      const hits = await search(alice, word as string);
      expect({ word, names: names(hits) }).toEqual({ word, names: [name] });
      expect(hits[0]?.snippet).toContain(`\u0002${word}\u0003`);
    }
    const memo = await search(alice, 'friends');
    expect(memo[0]?.snippet).toContain('ocelot & \u0002friends\u0003');
    const png = await alice
      .from('file_texts')
      .select('file_id')
      .eq('file_id', made['photo.png']?.id ?? '');
    expect(png.data).toEqual([]);
  });

  it('a file whose content cannot be read is recorded as failed, and the others go on', async () => {
    await upload(alice, 'broken.pdf', 'this is no pdf');
    await upload(alice, 'later.txt', 'a marmot');
    expect(await index(alice)).toEqual({ indexed: 1, failed: 1 });
    const { data } = await alice
      .from('file_texts')
      .select('state, last_error')
      .eq('file_id', made['broken.pdf']?.id ?? '')
      .single();
    expect(data?.state).toBe('failed');
    expect(names(await search(alice, 'marmot'))).toEqual(['later.txt']);
  });

  it('a new version is read again: its words are found, the old ones no longer', async () => {
    const notes = await upload(alice, 'changing.txt', 'first a gecko');
    await index(alice);
    expect(names(await search(alice, 'gecko'))).toEqual(['changing.txt']);
    const body = new TextEncoder().encode('then an iguana');
    const { data, error } = await alice
      .rpc('begin_version', {
        p_file_id: notes.id,
        p_size: body.byteLength,
        p_mime_type: 'text/plain',
      })
      .single();
    if (error) throw error;
    const begun = data as { id: string; object_path: string };
    const up = await alice.storage.from('files').upload(begun.object_path, new Blob([body]));
    if (up.error) throw up.error;
    await rpc(alice, 'finish_version', { p_version: begun.id });
    expect(await index(alice)).toEqual({ indexed: 1, failed: 0 });
    expect(names(await search(alice, 'iguana'))).toEqual(['changing.txt']);
    expect(await search(alice, 'gecko')).toEqual([]);
  });

  it('the function is for signed-in people (and the service role) only', async () => {
    const res = await fetch(`${server.url}/functions/v1/search-index`, {
      method: 'POST',
      headers: { apikey: server.anonKey, authorization: `Bearer ${server.anonKey}` },
    });
    expect(res.status).toBe(401);
    await res.body?.cancel();
  });
});

describe('ranking and highlights', () => {
  it('names first (the name that is the query, then names starting with it), then content', async () => {
    const hits = await search(alice, 'zephyr');
    expect(names(hits)).toEqual([
      'Zephyr projects',
      'Zephyr.txt',
      'old-zephyr-draft.txt',
      'notes.md',
    ]);
    expect(hits.map((h) => h.kind)).toEqual(['folder', 'file', 'file', 'file']);
    expect(hits[3]?.snippet).toContain('The \u0002zephyr\u0003 quarterly plan');
    expect(hits[2]?.snippet).toBeNull();
  });

  it('a file found by name and by content keeps both: above a name-only match', async () => {
    await upload(alice, 'heron list.txt', 'nothing here');
    await upload(alice, 'heron notes.txt', 'the heron flew');
    await index(alice);
    const hits = await search(alice, 'heron');
    // By name alone, 'heron list.txt' would come first (same score, then the name).
    expect(names(hits)).toEqual(['heron notes.txt', 'heron list.txt']);
    expect(hits[1]?.score).toBe(1.5);
    expect(hits[0]?.score).toBeGreaterThan(1.5);
    expect(hits[0]?.snippet).toContain('\u0002heron\u0003');
  });

  it('a page is that part of the whole list, also when the best matches are filtered out', async () => {
    // Scores: the name is the query (2), starts with it (1.5), has it (1), the content only.
    await upload(alice, 'egret', 'x');
    await upload(alice, 'egret b.txt', 'x');
    await upload(alice, 'the egret.txt', 'x');
    await upload(alice, 'pond.txt', 'an egret');
    await index(alice);
    const pages = async () => {
      const all = names(await search(alice, 'egret'));
      const one: string[] = [];
      for (let offset = 0; offset < all.length + 1; offset += 1) {
        one.push(...names(await search(alice, 'egret', { p_limit: 1, p_offset: offset })));
      }
      return { all, one };
    };
    const before = await pages();
    expect(before.all).toEqual(['egret', 'egret b.txt', 'the egret.txt', 'pond.txt']);
    expect(before.one).toEqual(before.all);
    await rpc(alice, 'trash_items', {
      p_files: [made.egret?.id, made['egret b.txt']?.id],
      p_folders: [],
    });
    const after = await pages();
    expect(after.all).toEqual(['the egret.txt', 'pond.txt']);
    expect(after.one).toEqual(after.all);
  });

  it('matches words as prefixes, all of them', async () => {
    expect(names(await search(alice, 'zeph quart'))).toEqual(['notes.md']);
    expect(names(await search(alice, 'pango'))).toEqual(['report.pdf']);
    expect(await search(alice, 'zephyr pangolin')).toEqual([]);
    expect(await search(alice, '  ')).toEqual([]);
    expect(await search(alice, "'\\:*&|!")).toEqual([]);
  });
});

describe('filters', () => {
  it('by type', async () => {
    expect(names(await search(alice, 'zephyr', { p_type: 'folder' }))).toEqual(['Zephyr projects']);
    expect(names(await search(alice, 'zephyr', { p_type: 'text' }))).toEqual([
      'Zephyr.txt',
      'old-zephyr-draft.txt',
      'notes.md',
    ]);
    expect(names(await search(alice, 'pangolin', { p_type: 'document' }))).toEqual([]);
    expect(names(await search(alice, 'pangolin', { p_type: 'pdf' }))).toEqual(['report.pdf']);
    const bad = await alice.rpc('search_items', { q: 'zephyr', p_type: 'nope' });
    expect(bad.error?.code).toBe('22023');
    const page = await alice.rpc('search_items', { q: 'zephyr', p_limit: 0 });
    expect(page.error?.code).toBe('22023');
  });

  it('by size (folders have none) and by modified date', async () => {
    expect(names(await search(alice, 'zephyr', { p_min_size: 10 }))).toEqual([
      'Zephyr.txt',
      'notes.md',
    ]);
    expect(names(await search(alice, 'zephyr', { p_max_size: 9 }))).toEqual([
      'old-zephyr-draft.txt',
    ]);
    // (Every update of a file row sets `updated_at` to now: the triggers are off for this one.)
    await server.db.query('alter table public.files disable trigger user');
    await server.db.query(
      "update public.files set updated_at = now() - interval '40 days' where id = $1",
      [made['notes.md']?.id],
    );
    await server.db.query('alter table public.files enable trigger user');
    const month = new Date(Date.now() - 30 * 86_400_000).toISOString();
    expect(
      names(await search(alice, 'zephyr', { p_modified_after: month, p_type: 'text' })),
    ).toEqual(['Zephyr.txt', 'old-zephyr-draft.txt']);
    expect(names(await search(alice, 'zephyr', { p_modified_before: month }))).toEqual([
      'notes.md',
    ]);
  });
});

describe('pages', () => {
  it('goes through every result, page by page, each once', async () => {
    for (let i = 0; i < 7; i += 1) await upload(alice, `kestrel ${i}.txt`, 'x');
    const seen: string[] = [];
    for (let offset = 0; ; offset += 3) {
      const page = await search(alice, 'kestrel', { p_limit: 3, p_offset: offset });
      seen.push(...names(page));
      if (page.length < 3) break;
    }
    expect(seen).toEqual(Array.from({ length: 7 }, (_, i) => `kestrel ${i}.txt`));
  });
});

describe('the Trash', () => {
  it('finds nothing in it, by name or content, nor below a trashed folder', async () => {
    const box = await folder(alice, 'Box');
    const inside = await upload(alice, 'inside.txt', 'a wombat', box.id);
    const alone = await upload(alice, 'alone.txt', 'another wombat');
    await index(alice);
    expect(names(await search(alice, 'wombat'))).toEqual(['alone.txt', 'inside.txt']);
    await rpc(alice, 'trash_items', { p_files: [alone.id], p_folders: [box.id] });
    expect(await search(alice, 'wombat')).toEqual([]);
    expect(await search(alice, 'inside')).toEqual([]);
    await rpc(alice, 'restore_items', { p_files: [alone.id], p_folders: [box.id] });
    expect(names(await search(alice, 'wombat'))).toEqual(['alone.txt', 'inside.txt']);
    expect(inside.id).toBeTruthy();
  });
});

describe('who finds what', () => {
  it('others find only what is shared with them, and say whose it is', async () => {
    const team = await folder(alice, 'Team');
    await upload(alice, 'plan.txt', 'the capybara plan', team.id);
    await upload(alice, 'private.txt', 'my capybara diary');
    await upload(bob, 'bobs.txt', 'bob likes capybara too');
    await index(alice);
    await index(bob);
    expect(names(await search(bob, 'capybara'))).toEqual(['bobs.txt']);
    await rpc(alice, 'share_with', {
      p_kind: 'folder',
      p_id: team.id,
      p_email: bob.email,
      p_role: 'viewer',
    });
    const hits = await search(bob, 'capybara');
    expect(names(hits).sort()).toEqual(['bobs.txt', 'plan.txt']);
    expect(hits.find((h) => h.name === 'plan.txt')?.owner_id).toBe(alice.uid);
    expect(names(await search(bob, 'capybara', { p_owner: 'shared' }))).toEqual(['plan.txt']);
    expect(names(await search(bob, 'capybara', { p_owner: 'mine' }))).toEqual(['bobs.txt']);
    expect(names(await search(bob, 'team'))).toEqual(['Team']);
    // Carol: nothing, by name, content, or the text table itself.
    expect(await search(carol, 'capybara')).toEqual([]);
    expect(await search(carol, 'zephyr')).toEqual([]);
    expect((await carol.from('file_texts').select('file_id')).data).toEqual([]);
    expect((await bob.from('file_texts').select('file_id')).data?.length).toBe(2);
    // Signed out: no search at all.
    const anon = await fetch(`${server.url}/rest/v1/rpc/search_items`, {
      method: 'POST',
      headers: { apikey: server.anonKey, 'content-type': 'application/json' },
      body: JSON.stringify({ q: 'capybara' }),
    });
    expect(anon.status).toBe(401);
    await anon.body?.cancel();
  });
});
