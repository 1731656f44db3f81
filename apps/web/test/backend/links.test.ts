/**
 * Links for anyone (migrations/*_links*.sql, functions/share): folder links, passwords and
 * their rate limit, expiry, download limits, view-only links, upload links (file requests)
 * within the size cap and the owner's quota, revoking, and the counts the owner sees — each
 * rule as a visitor with nothing but the anon key would meet it, through the `share`
 * function, and as the owner through REST. Wrong passwords count per visitor address (as the
 * server resolves it) and, far more of them, per link.
 */
import type { Client } from '@app/backend-sdk';
import { memoryUrlStore } from '@app/backend-sdk/tus';
import type { RunningServer } from '@app/backend-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  file,
  folder,
  memoryClient,
  newPerson,
  newUser as newUserOf,
  type Row,
  startDriveServer,
} from './support';

let server: RunningServer;
const newUser = () => newUserOf(server);

beforeAll(async () => {
  server = await startDriveServer();
});
afterAll(async () => {
  await server?.stop();
});

interface Answer {
  status: number;
  body: Record<string, unknown>;
  headers: Headers;
}

/**
 * Calls the `share` function as a visitor (the anon key, no account); `from` sends an
 * X-Forwarded-For header (believed only by a server that trusts this machine as a proxy).
 */
async function visit(
  body: Record<string, unknown>,
  session?: string,
  via: { server?: RunningServer; from?: string } = {},
): Promise<Answer> {
  const target = via.server ?? server;
  const res = await fetch(`${target.url}/functions/v1/share`, {
    method: 'POST',
    headers: {
      apikey: target.anonKey,
      authorization: `Bearer ${target.anonKey}`,
      'content-type': 'application/json',
      ...(session ? { 'x-link-session': session } : {}),
      ...(via.from ? { 'x-forwarded-for': via.from } : {}),
    },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(text) as Record<string, unknown>;
  } catch {
    parsed = { text };
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

async function createLink(c: Client, args: Record<string, unknown>) {
  const { data, error } = await c.rpc('create_link', args).single();
  if (error) throw error;
  return data as { id: string; token: string };
}

/** Opens a link (with its password) and returns the visitor's session. */
async function open(token: string, password?: string): Promise<string> {
  const o = await visit({ action: 'open', token, ...(password ? { password } : {}) });
  expect(o.status).toBe(200);
  return o.body.session as string;
}

const counts = async (c: Client, id: string) =>
  (await c.from('shares').select('visit_count, download_count, upload_count').eq('id', id).single())
    .data;

describe('a folder link with a password', () => {
  let owner: Client & { uid: string };
  let root: Row;
  let sub: Row;
  let outside: Row;
  let inSub: Row;
  let link: { id: string; token: string };

  beforeAll(async () => {
    owner = await newUser();
    root = await folder(owner, 'Holiday');
    sub = await folder(owner, 'Day 1', root.id);
    await file(owner, 'notes.txt', root.id, 'root notes');
    inSub = await file(owner, 'beach.txt', sub.id, 'sand and sea');
    outside = await file(owner, 'private.txt', null, 'not in the link');
    link = await createLink(owner, { p_folder_id: root.id, p_password: 'open sesame' });
  });

  it('asks for the password, refuses a wrong one, and opens with the right one', async () => {
    expect(await visit({ action: 'open', token: link.token })).toMatchObject({
      status: 401,
      body: { error: 'password_required' },
    });
    expect(await visit({ action: 'open', token: link.token, password: 'nope' })).toMatchObject({
      status: 401,
      body: { error: 'wrong_password' },
    });
    const o = await visit({ action: 'open', token: link.token, password: 'open sesame' });
    expect(o.status).toBe(200);
    expect(o.body).toMatchObject({ kind: 'folder', mode: 'download', name: 'Holiday' });
    expect(o.body.session).toMatch(/^[0-9a-f]{64}$/);
    expect(o.body).not.toHaveProperty('url');
  });

  it('lists the tree under the folder, and nothing above or beside it', async () => {
    const session = await open(link.token, 'open sesame');
    const top = await visit({ action: 'list', token: link.token }, session);
    expect(top.status).toBe(200);
    expect(top.body).toMatchObject({
      folder: { id: root.id, name: 'Holiday' },
      path: [{ id: root.id, name: 'Holiday' }],
      folders: [{ id: sub.id, name: 'Day 1' }],
      files: [{ name: 'notes.txt', size: 10 }],
    });
    const inner = await visit({ action: 'list', token: link.token, folder: sub.id }, session);
    expect(inner.body).toMatchObject({
      path: [{ name: 'Holiday' }, { name: 'Day 1' }],
      files: [{ id: inSub.id, name: 'beach.txt' }],
    });
    const mine = await folder(owner, 'Elsewhere');
    for (const [what, body] of [
      ['a folder outside', { action: 'list', folder: mine.id }],
      ['a file outside', { action: 'preview', file: outside.id }],
      ['a file outside', { action: 'download', file: outside.id }],
    ] as const) {
      const res = await visit({ ...body, token: link.token }, session);
      expect({ what, status: res.status, error: res.body.error }).toEqual({
        what,
        status: 404,
        error: 'item_not_found',
      });
    }
  });

  it('wants the session of this link: none, a made-up one or another link’s is refused', async () => {
    const other = await createLink(owner, { p_folder_id: sub.id });
    const otherSession = await open(other.token);
    for (const session of [undefined, 'f'.repeat(64), otherSession]) {
      const res = await visit({ action: 'list', token: link.token }, session);
      expect(res).toMatchObject({ status: 401, body: { error: 'session' } });
    }
  });

  it('previews a file’s bytes through the link and downloads it, counting visits and downloads', async () => {
    const before = await counts(owner, link.id);
    const session = await open(link.token, 'open sesame');
    const preview = await fetch(`${server.url}/functions/v1/share`, {
      method: 'POST',
      headers: {
        apikey: server.anonKey,
        'content-type': 'application/json',
        'x-link-session': session,
      },
      body: JSON.stringify({ action: 'preview', token: link.token, file: inSub.id }),
    });
    expect(preview.status).toBe(200);
    expect(preview.headers.get('content-type')).toBe(inSub.mime_type);
    expect(await preview.text()).toBe('sand and sea');
    const down = await visit({ action: 'download', token: link.token, file: inSub.id }, session);
    expect(down.status).toBe(200);
    expect(await (await fetch(down.body.url as string)).text()).toBe('sand and sea');
    const zip = await visit({ action: 'zip', token: link.token }, session);
    expect(zip.status).toBe(200);
    expect((zip.body.items as { name: string; url?: string }[]).map((i) => i.name)).toEqual([
      'Holiday/',
      'Holiday/Day 1/',
      'Holiday/Day 1/beach.txt',
      'Holiday/notes.txt',
    ]);
    expect(await counts(owner, link.id)).toEqual({
      visit_count: (before?.visit_count ?? 0) + 1,
      download_count: (before?.download_count ?? 0) + 2,
      upload_count: 0,
    });
  });

  it('stops taking passwords after five wrong ones, even the right one, until the window passes', async () => {
    const l = await createLink(owner, { p_folder_id: sub.id, p_password: 'right one' });
    for (let i = 0; i < 5; i += 1) {
      const res = await visit({ action: 'open', token: l.token, password: `guess ${i}` });
      expect(res.body.error).toBe('wrong_password');
    }
    const blocked = await visit({ action: 'open', token: l.token, password: 'right one' });
    expect(blocked).toMatchObject({ status: 429, body: { error: 'rate_limited' } });
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another link is not affected.
    expect(
      (await visit({ action: 'open', token: link.token, password: 'open sesame' })).status,
    ).toBe(200);
    await server.db.query(
      `update private.link_attempts set at = at - interval '16 minutes' where share_id = $1`,
      [l.id],
    );
    expect((await visit({ action: 'open', token: l.token, password: 'right one' })).status).toBe(
      200,
    );
  });

  it('does not believe an address the visitor names: guesses under changing X-Forwarded-For count as one', async () => {
    const l = await createLink(owner, { p_folder_id: sub.id, p_password: 'right one' });
    for (let i = 0; i < 5; i += 1) {
      const res = await visit(
        { action: 'open', token: l.token, password: `guess ${i}` },
        undefined,
        {
          from: `203.0.113.${i + 1}`,
        },
      );
      expect(res.body.error).toBe('wrong_password');
    }
    const blocked = await visit(
      { action: 'open', token: l.token, password: 'right one' },
      undefined,
      {
        from: '198.51.100.9',
      },
    );
    expect(blocked).toMatchObject({ status: 429, body: { error: 'rate_limited' } });
  });

  it('keeps passwords, attempts and sessions out of everyone’s reach but the function', async () => {
    const anon = memoryClient(server);
    for (const c of [anon, owner]) {
      const res = await c.rpc('open_link', { p_token: link.token, p_password: 'open sesame' });
      expect(res.error).not.toBeNull();
      const list = await c.rpc('link_list', { p_token: link.token, p_session: null });
      expect(list.error).not.toBeNull();
    }
    // The owner changes nothing of a link but revoking it.
    const mode = await owner.from('shares').update({ mode: 'upload' }).eq('id', link.id).select();
    expect(mode.error).not.toBeNull();
    const count = await owner
      .from('shares')
      .update({ download_count: 0 })
      .eq('id', link.id)
      .select();
    expect(count.error).not.toBeNull();
    // Someone else cannot link the owner's folder.
    const stranger = await newUser();
    const res = await stranger.rpc('create_link', { p_folder_id: root.id });
    expect(res.error).toMatchObject({ hint: 'not_owner' });
  });
});

describe('expiry, download limits, view only, revoking', () => {
  let owner: Client & { uid: string };
  let doc: Row;

  beforeAll(async () => {
    owner = await newUser();
    doc = await file(owner, 'doc.txt', null, 'the document');
  });

  it('offers expiry from one hour to never, and refuses less than an hour', async () => {
    const never = await createLink(owner, { p_file_id: doc.id, p_expires_in: null });
    expect((await visit({ action: 'open', token: never.token })).body.expiresAt).toBeNull();
    const short = await owner.rpc('create_link', { p_file_id: doc.id, p_expires_in: '30 minutes' });
    expect(short.error).toMatchObject({ hint: 'invalid_expiry' });
  });

  it('an expired link opens no more, and its sessions end with it', async () => {
    const l = await createLink(owner, { p_file_id: doc.id, p_expires_in: '1 hour' });
    const session = await open(l.token);
    await server.db.query(
      `update public.shares set created_at = now() - interval '2 hours',
         expires_at = now() - interval '1 hour' where id = $1`,
      [l.id],
    );
    expect(await visit({ action: 'open', token: l.token })).toMatchObject({
      status: 410,
      body: { error: 'expired', message: 'This link has expired.' },
    });
    expect(await visit({ action: 'download', token: l.token }, session)).toMatchObject({
      status: 410,
      body: { error: 'expired' },
    });
  });

  it('a download limit: the last allowed download, then the link is used up', async () => {
    const l = await createLink(owner, { p_file_id: doc.id, p_max_downloads: 2 });
    const session = await open(l.token);
    expect((await visit({ action: 'download', token: l.token }, session)).status).toBe(200);
    // Previews do not count.
    expect((await visit({ action: 'preview', token: l.token }, session)).status).toBe(200);
    expect((await visit({ action: 'download', token: l.token }, session)).status).toBe(200);
    expect(await visit({ action: 'download', token: l.token }, session)).toMatchObject({
      status: 410,
      body: { error: 'exhausted', message: 'This link has reached its download limit.' },
    });
    expect((await visit({ action: 'open', token: l.token })).status).toBe(410);
    expect(await counts(owner, l.id)).toMatchObject({ download_count: 2, visit_count: 1 });
  });

  it('view only: the bytes through the link for a preview, no URL to the object, no download', async () => {
    const dir = await folder(owner, 'Viewing');
    const inside = await file(owner, 'seen.txt', dir.id, 'look, do not take');
    const l = await createLink(owner, { p_folder_id: dir.id, p_mode: 'view' });
    const o = await visit({ action: 'open', token: l.token });
    expect(o.body).toMatchObject({ mode: 'view' });
    const session = o.body.session as string;
    const preview = await visit({ action: 'preview', token: l.token, file: inside.id }, session);
    expect(preview).toMatchObject({ status: 200, body: { text: 'look, do not take' } });
    for (const action of ['download', 'zip']) {
      const res = await visit({ action, token: l.token, file: inside.id }, session);
      expect(res).toMatchObject({ status: 403, body: { error: 'view_only' } });
      expect(JSON.stringify(res.body)).not.toContain('/storage/v1');
    }
    const listed = await visit({ action: 'list', token: l.token }, session);
    expect(JSON.stringify(listed.body)).not.toContain(inside.object_path as string);
    expect(await counts(owner, l.id)).toMatchObject({ download_count: 0 });
  });

  it('a revoked link is no longer available, sessions included', async () => {
    const l = await createLink(owner, { p_file_id: doc.id });
    const session = await open(l.token);
    const revoked = await owner
      .from('shares')
      .update({ revoked_at: new Date().toISOString() })
      .eq('id', l.id)
      .select();
    expect(revoked.error).toBeNull();
    expect(await visit({ action: 'open', token: l.token })).toMatchObject({
      status: 410,
      body: { error: 'revoked' },
    });
    expect(await visit({ action: 'preview', token: l.token }, session)).toMatchObject({
      status: 410,
      body: { error: 'revoked' },
    });
  });
});

describe('upload links (file requests)', () => {
  let owner: Client & { uid: string };
  let inbox: Row;
  let there: Row;

  beforeAll(async () => {
    owner = await newUser();
    inbox = await folder(owner, 'Inbox');
    there = await file(owner, 'already-here.txt', inbox.id, 'secret');
  });

  /** Uploads `body` as `name` through the link the way the page does: tus with the link's token. */
  async function upload(token: string, session: string, name: string, body: string) {
    const begun = await visit({ action: 'upload', token, name, size: body.length }, session);
    if (begun.status !== 200) return begun;
    const visitor = memoryClient(server);
    const up = visitor.storage
      .from('files')
      .uploadResumable(begun.body.path as string, new Blob([body], { type: 'text/plain' }), {
        signature: begun.body.signature as string,
        urlStore: false,
      });
    const { error } = await up.result;
    if (error) throw error;
    return visit({ action: 'finish', token, key: begun.body.key }, session);
  }

  it('takes uploads into the folder, as the owner’s files, and shows the uploader nothing', async () => {
    const l = await createLink(owner, { p_folder_id: inbox.id, p_mode: 'upload' });
    const o = await visit({ action: 'open', token: l.token });
    expect(o.body).toMatchObject({ mode: 'upload', name: 'Inbox' });
    const session = o.body.session as string;
    expect(await upload(l.token, session, 'report.txt', 'my report')).toMatchObject({
      status: 200,
    });
    // Another uploader, same name: their own file, next to it.
    expect(await upload(l.token, await open(l.token), 'report.txt', 'other')).toMatchObject({
      status: 200,
    });
    const files = await owner
      .from('files')
      .select('name, status, owner_id, size')
      .eq('folder_id', inbox.id)
      .order('name');
    expect(files.data).toEqual([
      { name: 'already-here.txt', status: 'ready', owner_id: owner.uid, size: 6 },
      { name: 'report (1).txt', status: 'ready', owner_id: owner.uid, size: 5 },
      { name: 'report.txt', status: 'ready', owner_id: owner.uid, size: 9 },
    ]);
    for (const body of [
      { action: 'list' },
      { action: 'preview', file: there.id },
      { action: 'download', file: there.id },
      { action: 'zip' },
    ]) {
      const res = await visit({ ...body, token: l.token }, session);
      expect({ action: body.action, status: res.status, error: res.body.error }).toEqual({
        action: body.action,
        status: 403,
        error: 'upload_only',
      });
    }
    // The upload token reaches only its own path, and reads nothing.
    const anon = memoryClient(server);
    const read = await anon.storage.from('files').download(there.object_path as string);
    expect(read.error).not.toBeNull();
    expect(await counts(owner, l.id)).toMatchObject({ upload_count: 2, visit_count: 2 });
    // A download link takes no uploads.
    const down = await createLink(owner, { p_folder_id: inbox.id });
    expect(
      await visit(
        { action: 'upload', token: down.token, name: 'x.txt', size: 1 },
        await open(down.token),
      ),
    ).toMatchObject({ status: 403, body: { error: 'not_upload' } });
  });

  it('keeps to the link’s size cap, over all its uploads, and to the announced size', async () => {
    const l = await createLink(owner, {
      p_folder_id: inbox.id,
      p_mode: 'upload',
      p_max_upload_bytes: 10,
    });
    const session = await open(l.token);
    expect(await upload(l.token, session, 'a.txt', '123456')).toMatchObject({ status: 200 });
    expect(await upload(l.token, session, 'b.txt', '12345')).toMatchObject({
      status: 413,
      body: { error: 'too_large' },
    });
    // Announcing fewer bytes than it sends does not get past the cap.
    const begun = await visit(
      { action: 'upload', token: l.token, name: 'c.txt', size: 2 },
      session,
    );
    const up = memoryClient(server)
      .storage.from('files')
      .uploadResumable(begun.body.path as string, new Blob(['1234']), {
        signature: begun.body.signature as string,
        urlStore: false,
      });
    await up.result;
    expect(
      await visit({ action: 'finish', token: l.token, key: begun.body.key }, session),
    ).toMatchObject({ status: 413, body: { error: 'too_large' } });
    // Nor when the upload expires with its bytes there: it goes to the Trash, not ready.
    const { rows } = await server.db.query<{ id: string }>(
      `update public.files set created_at = now() - interval '25 hours'
        where folder_id = $1 and name = 'c.txt' returning id`,
      [inbox.id],
    );
    await server.db.query('select public.expire_uploads()');
    const late = await server.db.query<{ status: string; trashed: boolean }>(
      'select status, trashed_at is not null as trashed from public.files where id = $1',
      [rows[0]?.id],
    );
    expect(late.rows).toEqual([{ status: 'uploading', trashed: true }]);
  });

  it('keeps to the owner’s quota', async () => {
    const full = await newUser();
    const box = await folder(full, 'Requests');
    const big = [
      await file(full, 'big-1.bin', null, 'b'),
      await file(full, 'big-2.bin', null, 'b'),
    ];
    // The rest of the quota used: two files of up to 5 GiB (sizes set past the row
    // triggers), 2 bytes short of the quota.
    await server.db.transaction(async (tx) => {
      await tx.exec('set local session_replication_role = replica');
      await tx.query('update public.files set size = 5368709120 where id = $1', [big[0]?.id]);
      await tx.query(
        'update public.files set size = public.quota_bytes() - 5368709120 - 2 where id = $1',
        [big[1]?.id],
      );
    });
    const l = await createLink(full, { p_folder_id: box.id, p_mode: 'upload' });
    const session = await open(l.token);
    expect(await upload(l.token, session, 'fits.txt', '12')).toMatchObject({ status: 200 });
    expect(await upload(l.token, session, 'too-much.txt', '1')).toMatchObject({
      status: 413,
      body: { error: 'quota_exceeded' },
    });
  });

  it('resumes an interrupted upload with its key, in a new session, where it stopped', async () => {
    const l = await createLink(owner, { p_folder_id: inbox.id, p_mode: 'upload' });
    const body = 'abcdefghijklmnopqrstuvwxyz';
    const store = memoryUrlStore();
    let session = await open(l.token);
    const first = await visit(
      { action: 'upload', token: l.token, name: 'long.txt', size: 26 },
      session,
    );
    const part = memoryClient(server)
      .storage.from('files')
      .uploadResumable(first.body.path as string, new Blob([body]), {
        signature: first.body.signature as string,
        urlStore: store,
        chunkSize: 10,
        uploadDataDuringCreation: false,
        onChunkComplete: () => part.pause(),
      });
    await expect.poll(() => part.state).toBe('paused');
    expect(part.bytes).toBe(10);

    // Later (a reload): a new session, the same key, a new token for the same file.
    session = await open(l.token);
    const again = await visit(
      { action: 'upload', token: l.token, name: 'long.txt', size: 26, key: first.body.key },
      session,
    );
    expect(again.body).toMatchObject({ key: first.body.key, path: first.body.path });
    const sent: number[] = [];
    const rest = memoryClient(server)
      .storage.from('files')
      .uploadResumable(again.body.path as string, new Blob([body]), {
        signature: again.body.signature as string,
        urlStore: store,
        chunkSize: 10,
        onChunkComplete: (c) => sent.push(c.bytes),
      });
    const { error } = await rest.result;
    expect(error).toBeNull();
    // The same tus upload, continued from its 10 bytes.
    expect(rest.url).toBe(part.url);
    expect(sent).toEqual([20, 26]);
    expect(
      await visit({ action: 'finish', token: l.token, key: first.body.key }, session),
    ).toMatchObject({
      status: 200,
    });
    const stored = await owner.storage.from('files').download(first.body.path as string);
    expect(await (stored.data as Blob).text()).toBe(body);
  });

  it('goes with its folder to a new owner', async () => {
    const a = await newPerson(server);
    const b = await newPerson(server);
    const box = await folder(a, 'Handover');
    const l = await createLink(a, { p_folder_id: box.id, p_mode: 'upload' });
    const granted = await a
      .rpc('share_with', { p_kind: 'folder', p_id: box.id, p_email: b.email, p_role: 'editor' })
      .single();
    expect(granted.error).toBeNull();
    const moved = await a.rpc('transfer_ownership', {
      p_kind: 'folder',
      p_id: box.id,
      p_to: b.uid,
    });
    expect(moved.error).toBeNull();
    expect((await b.from('shares').select('id').eq('id', l.id)).data).toEqual([{ id: l.id }]);
    expect(await upload(l.token, await open(l.token), 'late.txt', 'late')).toMatchObject({
      status: 200,
    });
    const landed = await b.from('files').select('owner_id').eq('folder_id', box.id);
    expect(landed.data).toEqual([{ owner_id: b.uid }]);
  });
});

describe('wrong passwords behind a trusted proxy', () => {
  let proxied: RunningServer;
  let owner: Client & { uid: string };
  let root: Row;

  beforeAll(async () => {
    // The proxy (this machine) names each visitor in X-Forwarded-For, and the server believes it.
    proxied = await startDriveServer({ trustedProxies: ['127.0.0.1', '::1'] });
    owner = await newUserOf(proxied);
    root = await folder(owner, 'Proxied');
  });
  afterAll(async () => {
    await proxied?.stop();
  });

  const guess = (token: string, password: string, from: string) =>
    visit({ action: 'open', token, password }, undefined, { server: proxied, from });

  it('locks out the address that guessed wrong five times, not the link’s other visitors', async () => {
    const l = await createLink(owner, { p_folder_id: root.id, p_password: 'right one' });
    for (let i = 0; i < 5; i += 1) {
      expect((await guess(l.token, `guess ${i}`, '203.0.113.7')).body.error).toBe('wrong_password');
    }
    const blocked = await guess(l.token, 'right one', '203.0.113.7');
    expect(blocked).toMatchObject({ status: 429, body: { error: 'rate_limited' } });
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    // The recipient, elsewhere, still gets in; and still has their own five tries.
    expect((await guess(l.token, 'right one', '198.51.100.2')).status).toBe(200);
    expect((await guess(l.token, 'typo', '198.51.100.2')).body.error).toBe('wrong_password');
    expect((await guess(l.token, 'right one', '198.51.100.2')).status).toBe(200);
  });

  it('refuses everyone once the link as a whole has taken a hundred wrong passwords', async () => {
    const l = await createLink(owner, { p_folder_id: root.id, p_password: 'right one' });
    // 99 wrong ones from 33 addresses (three each), as if guessed in the window.
    await proxied.db.query(
      `insert into private.link_attempts (share_id, client)
       select $1, '192.0.2.' || (n % 33) from generate_series(1, 99) n`,
      [l.id],
    );
    expect((await guess(l.token, 'right one', '198.51.100.3')).status).toBe(200);
    expect((await guess(l.token, 'guess', '198.51.100.4')).body.error).toBe('wrong_password');
    const blocked = await guess(l.token, 'right one', '198.51.100.3');
    expect(blocked).toMatchObject({ status: 429, body: { error: 'rate_limited' } });
    await proxied.db.query(
      `update private.link_attempts set at = at - interval '16 minutes' where share_id = $1`,
      [l.id],
    );
    expect((await guess(l.token, 'right one', '198.51.100.3')).status).toBe(200);
  });
});
