import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseUrlId, sweepTus, urlId } from '../../../../src/storage/tus/tus';
import { ObjectFileStore } from '../../../../src/storage/tus/tus-store';

describe('tus upload ids', () => {
  it('round-trips bucket, key and version through the base64url URL id', () => {
    const version = randomUUID();
    const id = urlId('avatars', 'folder/a b+c.png', version);
    expect(id).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(parseUrlId(id)).toEqual({ bucket: 'avatars', name: 'folder/a b+c.png', version });
  });

  it('refuses ids that do not end in a version uuid', () => {
    expect(parseUrlId(Buffer.from('a/b/../../etc').toString('base64url'))).toBeNull();
    expect(parseUrlId(Buffer.from('no-slashes').toString('base64url'))).toBeNull();
    expect(parseUrlId('not base64!')).toBeNull();
  });
});

describe('tus startup sweep', () => {
  it('drops expired, complete-but-uncommitted and unpaired uploads, keeps live ones and parts', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tus-sweep-'));
    const hour = 3600 * 1000;
    const put = async (id: string, record: object | null, bytes: string | null) => {
      if (record) await writeFile(join(dir, `${id}.json`), JSON.stringify(record));
      if (bytes !== null) await writeFile(join(dir, id), bytes);
    };
    const now = new Date().toISOString();
    const [live, expired, complete, lonely, recordOnly, part, oldPart] = Array.from(
      { length: 7 },
      () => randomUUID(),
    );
    await put(live as string, { size: 10, creation_date: now }, 'abc');
    await put(
      expired as string,
      { size: 10, creation_date: new Date(Date.now() - 25 * hour).toISOString() },
      'abc',
    );
    await put(complete as string, { size: 3, creation_date: now }, 'abc');
    await put(lonely as string, null, 'abc');
    await put(recordOnly as string, { size: 3, creation_date: now }, null);
    // A finished part waits for its final upload, until it expires.
    await put(part as string, { size: 3, creation_date: now, storage_partial: true }, 'abc');
    await put(
      oldPart as string,
      {
        size: 3,
        creation_date: new Date(Date.now() - 25 * hour).toISOString(),
        storage_partial: true,
      },
      'abc',
    );
    // A final upload waiting for its parts (its file full already), a part placed in it (no
    // file of its own), and a part placed in a final upload that is gone.
    const [final, placed, orphan] = [randomUUID(), randomUUID(), randomUUID()];
    await put(final as string, { size: 3, creation_date: now, storage_parts: [placed] }, 'abc');
    await put(
      placed as string,
      { size: 3, creation_date: now, storage_partial: true, storage_into: final },
      null,
    );
    await put(
      orphan as string,
      { size: 3, creation_date: now, storage_partial: true, storage_into: randomUUID() },
      null,
    );
    expect(await sweepTus(dir, 24 * hour)).toBe(6);
    expect((await readdir(dir)).sort()).toEqual(
      [live, `${live}.json`, part, `${part}.json`, final, `${final}.json`, `${placed}.json`].sort(),
    );
  });
});

describe('tus collector beside other replicas', () => {
  it('leaves uploads another request holds, and dead-looking ones touched within the grace period', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tus-grace-'));
    const hour = 3600 * 1000;
    const now = new Date().toISOString();
    const [held, fresh, starting, old] = Array.from({ length: 4 }, () => randomUUID());
    const expired = new Date(Date.now() - 25 * hour).toISOString();
    // Expired, but a request holds its lock.
    await writeFile(
      join(dir, `${held}.json`),
      JSON.stringify({ size: 10, creation_date: expired }),
    );
    await writeFile(join(dir, held as string), 'abc');
    // Complete but not committed yet (another replica's commit under way), just written.
    await writeFile(join(dir, `${fresh}.json`), JSON.stringify({ size: 3, creation_date: now }));
    await writeFile(join(dir, fresh as string), 'abc');
    // A new upload's file, its record not written yet.
    await writeFile(join(dir, starting as string), '');
    // Expired and free.
    await writeFile(join(dir, `${old}.json`), JSON.stringify({ size: 10, creation_date: expired }));
    await writeFile(join(dir, old as string), 'abc');
    const tryLock = async (id: string) => (id === held ? null : { unlock: async () => {} });
    expect(await sweepTus(dir, 24 * hour, { tryLock, graceMs: 10 * 60 * 1000 })).toBe(1);
    expect((await readdir(dir)).sort()).toEqual(
      [held, `${held}.json`, fresh, `${fresh}.json`, starting].sort(),
    );
    // Once idle past the grace period, the dead-looking ones go too.
    const later = Date.now() + 11 * 60 * 1000;
    expect(await sweepTus(dir, 24 * hour, { tryLock, graceMs: 10 * 60 * 1000, now: later })).toBe(
      2,
    );
    expect((await readdir(dir)).sort()).toEqual([held, `${held}.json`].sort());
  });
});

describe('tus expiry', () => {
  it('deletes finished parts that no final upload took in time, and keeps newer ones', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tus-expiry-'));
    const hour = 3600 * 1000;
    const store = new ObjectFileStore(dir, 24 * hour);
    const [fresh, stale] = [randomUUID(), randomUUID()];
    const put = async (id: string, created: number) => {
      await writeFile(
        join(dir, `${id}.json`),
        JSON.stringify({
          id,
          size: 3,
          offset: 0,
          creation_date: new Date(created).toISOString(),
          storage_partial: true,
        }),
      );
      await writeFile(join(dir, id), 'abc');
    };
    await put(fresh, Date.now());
    await put(stale, Date.now() - 25 * hour);
    expect(await store.deleteExpired()).toBe(1);
    expect((await readdir(dir)).sort()).toEqual([fresh, `${fresh}.json`].sort());
  });
});
