/**
 * Drive's backend: live updates and presence with sharing (backend/migrations/
 * 20261127000600_sharing_live.sql) — changes inside a shared folder reach every person with
 * access on their own topic `drive:<user id>`, cut to what they may know; losing access is
 * announced; presence on `shared:<item id>` admits exactly the people with access.
 */
import type { Client } from '@app/backend-sdk';
import type { RunningServer } from '@app/backend-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { file, folder, liveClient, newPerson, type Row, rpc, startDriveServer } from './support';

type Person = Client & { uid: string; email: string };
type Message = { event: string; payload: Record<string, unknown> };

let server: RunningServer;
let owner: Person;
let viewer: Person;
let stranger: Person;
let shared: Row;
let privateFolder: Row;

/** Messages sent on `drive:<uid>` since the last call (they are taken). */
async function heard(p: Person): Promise<Message[]> {
  const { rows } = await server.db.query<Message>(
    `delete from realtime.messages where topic = $1 and extension = 'broadcast'
     returning event, payload`,
    [`drive:${p.uid}`],
  );
  return rows;
}

beforeAll(async () => {
  server = await startDriveServer();
  owner = await newPerson(server);
  viewer = await newPerson(server);
  stranger = await newPerson(server);
  shared = await folder(owner, 'Shared');
  privateFolder = await folder(owner, 'Private');
  await rpc(owner, 'share_with', {
    p_kind: 'folder',
    p_id: shared.id,
    p_email: viewer.email,
    p_role: 'viewer',
  });
});
afterAll(async () => {
  await server?.stop();
});

describe('Live updates of shared folders', () => {
  it('announces changes in a shared folder to the people with access, and only theirs', async () => {
    const doc = await file(owner, 'doc.txt', shared.id, 'd');
    const secret = await file(owner, 'secret.txt', privateFolder.id, 's');
    await Promise.all([heard(owner), heard(viewer), heard(stranger)]);

    await owner.from('files').update({ name: 'renamed.txt' }).eq('id', doc.id);
    await owner.from('files').update({ name: 'still-secret.txt' }).eq('id', secret.id);
    const forOwner = await heard(owner);
    expect(forOwner.map((m) => m.payload.ids)).toEqual([[doc.id], [secret.id]]);
    expect(forOwner[1]?.payload.parents).toEqual([privateFolder.id]);
    expect(await heard(viewer)).toEqual([
      {
        event: 'change',
        payload: { table: 'files', op: 'UPDATE', count: 1, ids: [doc.id], parents: [shared.id] },
      },
    ]);
    expect(await heard(stranger)).toEqual([]);

    // Moved out: the people who lost it hear of it, without the folder it went to.
    await owner.from('files').update({ folder_id: privateFolder.id }).eq('id', doc.id);
    expect((await heard(viewer)).map((m) => m.payload)).toEqual([
      { table: 'files', op: 'UPDATE', count: 1, ids: [doc.id], parents: [shared.id] },
    ]);
    // Moved in: they hear of it, too.
    await owner.from('files').update({ folder_id: shared.id }).eq('id', secret.id);
    expect((await heard(viewer)).map((m) => m.payload)).toEqual([
      { table: 'files', op: 'UPDATE', count: 1, ids: [secret.id], parents: [shared.id] },
    ]);
    // A change of a whole folder below: everything that moved along is announced.
    const sub = await folder(owner, 'Sub', privateFolder.id);
    const inSub = await file(owner, 'in-sub.txt', sub.id, 'i');
    await heard(viewer);
    await owner.from('folders').update({ parent_id: shared.id }).eq('id', sub.id);
    // (the folder itself, and the path of the file below it)
    const moved = await heard(viewer);
    expect(moved.map((m) => [m.payload.table, m.payload.ids, m.payload.parents]).sort()).toEqual([
      ['files', [inSub.id], [sub.id]],
      ['folders', [sub.id], [shared.id]],
    ]);
    expect(await heard(stranger)).toEqual([]);
  });

  it('tells a person at once that their access was given, changed or removed', async () => {
    const p = await newPerson(server);
    const box = await folder(owner, 'Box');
    await heard(p);
    const g = await rpc<Array<{ grant_id: string }>>(owner, 'share_with', {
      p_kind: 'folder',
      p_id: box.id,
      p_email: p.email,
      p_role: 'viewer',
    });
    await rpc(owner, 'set_share_role', { p_grant: g[0]?.grant_id, p_role: 'editor' });
    await rpc(owner, 'unshare', { p_grant: g[0]?.grant_id });
    expect(
      (await heard(p)).map((m) => [m.event, m.payload.op, m.payload.id, m.payload.role]),
    ).toEqual([
      ['access', 'granted', box.id, 'viewer'],
      ['access', 'role', box.id, 'editor'],
      ['access', 'revoked', box.id, 'editor'],
    ]);
  });

  it('delivers the changes on the person’s own private topic', async () => {
    const received: unknown[] = [];
    const live = await liveClient(server, viewer.email);
    const channel = live.channel(`drive:${viewer.uid}`, { config: { private: true } });
    channel.on('broadcast', { event: 'change' }, (m: unknown) => void received.push(m));
    await new Promise<void>((resolve, reject) =>
      channel.subscribe((status, error) =>
        status === 'SUBSCRIBED'
          ? resolve()
          : status === 'CLOSED'
            ? undefined
            : reject(error ?? new Error(status)),
      ),
    );
    const added = await folder(owner, 'Live', shared.id);
    for (let i = 0; i < 50 && received.length === 0; i += 1) {
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(received).toEqual([
      expect.objectContaining({ payload: expect.objectContaining({ ids: [added.id] }) }),
    ]);
    await channel.unsubscribe();
  });
});

describe('Presence on a shared item', () => {
  const join = (c: Client, topic: string) =>
    new Promise<string>((resolve) => {
      const channel = c.channel(topic, {
        config: { private: true, presence: { key: 'device', enabled: true } },
      });
      channel.subscribe((status) => {
        if (status === 'CLOSED') return;
        void channel.unsubscribe();
        resolve(status);
      });
    });

  it('admits the owner and the people with access, and no one else', async () => {
    const o = await liveClient(server, owner.email);
    const v = await liveClient(server, viewer.email);
    const s = await liveClient(server, stranger.email);
    expect(await join(o, `shared:${shared.id}`)).toBe('SUBSCRIBED');
    expect(await join(v, `shared:${shared.id}`)).toBe('SUBSCRIBED');
    expect(await join(s, `shared:${shared.id}`)).toBe('CHANNEL_ERROR');
    expect(await join(v, `shared:${privateFolder.id}`)).toBe('CHANNEL_ERROR');
    expect(await join(v, 'shared:not-an-id')).toBe('CHANNEL_ERROR');
    // Removed a moment ago: no longer admitted.
    const r = await newPerson(server);
    const g = await rpc<Array<{ grant_id: string }>>(owner, 'share_with', {
      p_kind: 'folder',
      p_id: shared.id,
      p_email: r.email,
      p_role: 'editor',
    });
    const rl = await liveClient(server, r.email);
    expect(await join(rl, `shared:${shared.id}`)).toBe('SUBSCRIBED');
    await rpc(owner, 'unshare', { p_grant: g[0]?.grant_id });
    expect(await join(rl, `shared:${shared.id}`)).toBe('CHANNEL_ERROR');
    // Sharing does not open anyone else's own topic.
    expect(await join(v, `drive:${owner.uid}`)).toBe('CHANNEL_ERROR');
  });
});
