/**
 * Sharing (issue 24), on the real server in this process, on PGlite and then on PostgreSQL 15
 * (a temp cluster), same run:
 * a. Listing a folder of 10,000 files that the reader reaches through a share 5 levels up
 *    (the grant is on the folder 5 levels above it), against listing the same folder as its
 *    owner: the two requests Drive makes for a folder (src/lib/api.ts: `listFiles`, select *
 *    with the exact count, ordered, rows 0..99; `listFolders`), through the SDK, owner and
 *    reader interleaved. p50 and p95 of each; goal reader ≤ 1.25× owner.
 * b. A change in a folder shared with 50 people reaching all 50: 50 signed-in realtime
 *    clients, each on its own private topic `drive:<user id>` as Drive subscribes (and the
 *    owner on theirs); the owner renames a file in the folder through REST; latency = time a
 *    subscriber receives the change − start of the write request. p95 over every delivery and
 *    over the last subscriber of each change; goal p95 ≤ 250 ms. Anchor: the same change in a
 *    folder shared with no one, reaching the owner alone.
 * The server's own realtime bench (packages/backend-server/bench/realtime.bench.ts) measures
 * the transport alone (broadcast fan-out to 500 sockets, postgres_changes to 100).
 * Environment: BENCH_ROUNDS (listing rounds, default 200), BENCH_PART=a|b (one part only),
 * BENCH_EXPLAIN=1 (prints the plans: the listing's queries as owner and reader, and the write
 * with its triggers' times, shared with 50 and with no one).
 */
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { type Client, createClient } from '@app/backend-sdk';
import { type RunningServer, startServer } from '@app/backend-server';
import { startCluster } from '../../../packages/backend-server/test/support/postgres-cluster';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
const requireFromServer = createRequire(here('../../../packages/backend-server/package.json'));
const FILES = 10_000;
const DEPTH = 5;
const LIST_ROUNDS = Number(process.env.BENCH_ROUNDS ?? 200);
const SUBSCRIBERS = 50;
const CHANGES = 20;
const WARMUP = 3;

const pct = (xs: number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};
const ms = (n: number) => `${n.toFixed(1)} ms`;
const load = () => `load average ${loadavg()[0]?.toFixed(1)} on 2 cores, shared with other work`;

type Person = { c: Client; uid: string; email: string };
let n = 0;

/** A client with its session in memory, able to join realtime channels (Node 20: `ws`). */
function client(server: RunningServer): Client {
  const memory = new Map<string, string>();
  return createClient(server.url, server.anonKey, {
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
}

async function person(server: RunningServer): Promise<Person> {
  const c = client(server);
  n += 1;
  const email = `bench-${Date.now()}-${n}@example.com`;
  const { data, error } = await c.auth.signUp({ email, password: 'correct horse battery' });
  if (error) throw error;
  return { c, uid: (data as { user: { id: string } }).user.id, email };
}

async function must<T>(q: PromiseLike<{ data: T; error: unknown }>): Promise<T> {
  const { data, error } = await q;
  if (error) throw error;
  return data;
}

const newFolder = async (p: Person, name: string, parent: string | null) =>
  (await must(p.c.from('folders').insert({ name, parent_id: parent }).select('id').single())) as {
    id: string;
  };

const share = (p: Person, id: string, email: string, role = 'viewer') =>
  must(p.c.rpc('share_with', { p_kind: 'folder', p_id: id, p_email: email, p_role: role }));

/** The two requests Drive makes to show a folder (api.ts listFiles rows 0..99, listFolders). */
async function listFolder(c: Client, id: string) {
  const t0 = performance.now();
  const files = await c
    .from('files')
    .select('*', { count: 'exact' })
    .is('trashed_at', null)
    .eq('folder_id', id)
    .order('name', { ascending: true })
    .order('id', { ascending: true })
    .range(0, 99);
  const t1 = performance.now();
  const folders = await c
    .from('folders')
    .select('*')
    .is('trashed_at', null)
    .eq('parent_id', id)
    .order('name', { ascending: true });
  const t2 = performance.now();
  if (files.error || folders.error) throw files.error ?? folders.error;
  if (files.count !== FILES || (files.data as unknown[]).length !== 100) {
    throw new Error(`expected ${FILES} files, 100 rows; got ${files.count}`);
  }
  return { files: t1 - t0, folders: t2 - t1, both: t2 - t0 };
}

async function listing(server: RunningServer) {
  const owner = await person(server);
  const reader = await person(server);
  // Shared/L1/L2/L3/L4/Big: the grant is on Shared, 5 levels above Big.
  const top = await newFolder(owner, 'Shared', null);
  let parent = top.id;
  for (let i = 1; i < DEPTH; i += 1) parent = (await newFolder(owner, `L${i}`, parent)).id;
  const big = await newFolder(owner, 'Big', parent);
  await newFolder(owner, 'A sub-folder', big.id);
  await share(owner, top.id, reader.email);
  // The owner's other files, so the owner's own rows are not only this folder's.
  const other = await newFolder(owner, 'Elsewhere', null);
  const t0 = performance.now();
  // Straight into the table (the row triggers' per-row quota check would make seeding slow),
  // with the path the triggers would give each file.
  for (const [folder, count] of [
    [big.id, FILES],
    [other.id, FILES],
  ] as const) {
    await server.db.exec(
      `set session_replication_role = replica;
       insert into public.files (id, owner_id, created_by, folder_id, ancestors, name, size, mime_type, object_path, status)
       select g.id, '${owner.uid}', '${owner.uid}', f.id, f.ancestors || f.id, g.name, (g.i % 1000) * 1024,
              'text/plain', '${owner.uid}/' || g.id || '/' || g.name, 'ready'
       from public.folders f,
            (select i, gen_random_uuid() as id, 'file-' || lpad(i::text, 5, '0') || '.txt' as name
               from generate_series(1, ${count}) i) g
       where f.id = '${folder}';
       set session_replication_role = origin;
       analyze public.files;`,
    );
  }
  const { rows } = await server.db.query<{ ancestors: string[] }>(
    'select ancestors from public.folders where id = $1',
    [big.id],
  );
  console.log(
    `  seeded ${2 * FILES} files in ${(performance.now() - t0).toFixed(0)} ms; the listed folder has ${rows[0]?.ancestors.length} folders above it, the grant is on the outermost`,
  );
  for (let i = 0; i < 20; i += 1) {
    await listFolder(owner.c, big.id);
    await listFolder(reader.c, big.id);
  }
  const byOwner: ReturnType<typeof listFolder> extends Promise<infer T> ? T[] : never = [];
  const byReader: typeof byOwner = [];
  for (let i = 0; i < LIST_ROUNDS; i += 1) {
    // Interleaved, and the order alternating, so both see the same conditions.
    if (i % 2 === 0) {
      byOwner.push(await listFolder(owner.c, big.id));
      byReader.push(await listFolder(reader.c, big.id));
    } else {
      byReader.push(await listFolder(reader.c, big.id));
      byOwner.push(await listFolder(owner.c, big.id));
    }
  }
  const line = (label: string, key: 'files' | 'folders' | 'both') => {
    const o = byOwner.map((r) => r[key]);
    const r = byReader.map((x) => x[key]);
    const p50 = pct(r, 50) / pct(o, 50);
    const p95 = pct(r, 95) / pct(o, 95);
    console.log(
      `  ${label.padEnd(26)} owner p50 ${ms(pct(o, 50))} p95 ${ms(pct(o, 95))} | through the share p50 ${ms(pct(r, 50))} p95 ${ms(pct(r, 95))} | ratio p50 ${p50.toFixed(2)}× p95 ${p95.toFixed(2)}×`,
    );
    return { p50, p95 };
  };
  if (process.env.BENCH_EXPLAIN) {
    for (const [who, uid] of [
      ['owner', owner.uid],
      ['reader', reader.uid],
    ]) {
      for (const sql of [
        'select * from public.files where trashed_at is null and folder_id = $1 order by name, id limit 100',
        'select count(*) from public.files where trashed_at is null and folder_id = $1',
      ]) {
        const plan = await server.db.transaction(async (tx) => {
          await tx.query(
            `select set_config('request.jwt.claims', $1, true), set_config('role', 'authenticated', true)`,
            [JSON.stringify({ sub: uid, role: 'authenticated' })],
          );
          const { rows } = await tx.query<Record<string, string>>(`explain analyze ${sql}`, [
            big.id,
          ]);
          return rows.map((r) => Object.values(r)[0]).join('\n');
        });
        console.log(`  -- as the ${who}: ${sql}\n${plan}`);
      }
    }
  }
  console.log(`  listing (${LIST_ROUNDS} rounds each, after 20 to warm up):`);
  line('files (rows 0..99, count)', 'files');
  line('folders', 'folders');
  const both = line('both requests', 'both');
  console.log(
    `  goal ≤ 1.25× (both requests, p50 and p95): ${both.p50 <= 1.25 && both.p95 <= 1.25 ? 'met' : 'NOT met'} (${load()})`,
  );
}

/** Joins `drive:<uid>` as `p` (private, as Drive does); calls back on every `change`. */
async function subscribe(p: Person, onChange: (ids: string[]) => void) {
  const channel = p.c.channel(`drive:${p.uid}`, { config: { private: true } });
  channel.on('broadcast', { event: 'change' }, (m) => {
    onChange(((m as { payload?: { ids?: string[] } }).payload?.ids ?? []) as string[]);
  });
  await new Promise<void>((resolve, reject) =>
    channel.subscribe((status, error) =>
      status === 'SUBSCRIBED'
        ? resolve()
        : status === 'CLOSED'
          ? undefined
          : reject(error ?? new Error(status)),
    ),
  );
  return channel;
}

/**
 * Renames `fileId` `rounds` times as `owner`; per change, the times (from the start of the
 * write request) at which each of `listeners` heard of it.
 */
async function changes(owner: Person, fileId: string, listeners: Person[], rounds: number) {
  let start = 0;
  let waiting = new Set<string>();
  let times: number[] = [];
  let done: (() => void) | null = null;
  const channels = await Promise.all(
    listeners.map((p) =>
      subscribe(p, (ids) => {
        if (!ids.includes(fileId) || !waiting.has(p.uid)) return;
        waiting.delete(p.uid);
        times.push(performance.now() - start);
        if (waiting.size === 0) done?.();
      }),
    ),
  );
  const perChange: number[][] = [];
  const writes: number[] = [];
  try {
    for (let i = 0; i < WARMUP + rounds; i += 1) {
      waiting = new Set(listeners.map((p) => p.uid));
      times = [];
      const all = new Promise<void>((resolve, reject) => {
        done = resolve;
        setTimeout(() => reject(new Error(`${waiting.size} subscribers heard nothing`)), 10_000);
      });
      start = performance.now();
      await must(
        owner.c
          .from('files')
          .update({ name: `renamed-${i}.txt` })
          .eq('id', fileId),
      );
      const written = performance.now() - start;
      await all;
      if (i >= WARMUP) {
        perChange.push(times);
        writes.push(written);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    for (const ch of channels) await ch.unsubscribe();
  }
  return { perChange, writes };
}

async function fanOut(server: RunningServer) {
  const owner = await person(server);
  const people: Person[] = [];
  for (let i = 0; i < SUBSCRIBERS; i += 1) people.push(await person(server));
  const team = await newFolder(owner, 'Team', null);
  for (const p of people) await share(owner, team.id, p.email);
  const mine = await newFolder(owner, 'Mine alone', null);
  const fileIn = async (folder: string) => {
    const row = (await must(
      owner.c.rpc('begin_upload', { p_folder_id: folder, p_name: 'note.txt', p_size: 2 }).single(),
    )) as { id: string; object_path: string };
    await must(owner.c.storage.from('files').upload(row.object_path, new Blob(['hi'])));
    await must(owner.c.from('files').update({ status: 'ready' }).eq('id', row.id));
    return row.id;
  };
  const anchorFile = await fileIn(mine.id);
  const sharedFile = await fileIn(team.id);

  if (process.env.BENCH_EXPLAIN) {
    for (const id of [anchorFile, sharedFile, anchorFile, sharedFile]) {
      const plan = await server.db
        .transaction(async (tx) => {
          await tx.query(
            `select set_config('request.jwt.claims', $1, true), set_config('role', 'authenticated', true)`,
            [JSON.stringify({ sub: owner.uid, role: 'authenticated' })],
          );
          const { rows } = await tx.query<Record<string, string>>(
            `explain analyze update public.files set name = 'explained.txt' where id = $1`,
            [id],
          );
          // Thrown, so the transaction rolls back.
          throw { plan: rows.map((r) => Object.values(r)[0]).join('\n') };
        })
        .catch((e: { plan?: string }) => e.plan ?? String(e));
      console.log(
        `  -- the write, ${id === sharedFile ? 'shared with 50' : 'shared with no one'}:\n${plan}`,
      );
    }
  }
  const alone = await changes(owner, anchorFile, [owner], CHANGES);
  const anchor = alone.perChange.flat();
  console.log(
    `  anchor: a change in a folder shared with no one, to the owner alone (${anchor.length} changes): p50 ${ms(pct(anchor, 50))}, p95 ${ms(pct(anchor, 95))}; the write request itself p50 ${ms(pct(alone.writes, 50))}, p95 ${ms(pct(alone.writes, 95))}`,
  );
  const fanned = await changes(owner, sharedFile, [owner, ...people], CHANGES);
  const rounds = fanned.perChange;
  const each = rounds.flat();
  const last = rounds.map((t) => Math.max(...t));
  console.log(
    `  a change in a folder shared with ${SUBSCRIBERS} people, to them and the owner (${rounds.length} changes, ${each.length} deliveries):`,
  );
  console.log(`    each delivery:            p50 ${ms(pct(each, 50))}, p95 ${ms(pct(each, 95))}`);
  console.log(`    last subscriber reached:  p50 ${ms(pct(last, 50))}, p95 ${ms(pct(last, 95))}`);
  console.log(
    `    the write request itself (its trigger writes the ${SUBSCRIBERS + 1} messages): p50 ${ms(pct(fanned.writes, 50))}, p95 ${ms(pct(fanned.writes, 95))}`,
  );
  console.log(
    `  goal p95 ≤ 250 ms (last subscriber): ${pct(last, 95) <= 250 ? 'met' : 'NOT met'} (${load()})`,
  );
}

async function suite(label: string, databaseUrl?: string) {
  const server = await startServer({
    port: 0,
    migrationsDir: here('../backend/migrations'),
    log: false,
    auth: { passwordMinLength: 8, rateLimits: false },
    ...(databaseUrl ? { databaseUrl } : {}),
  });
  try {
    console.log(`\n${label}`);
    const part = process.env.BENCH_PART;
    if (!part || part === 'a') await listing(server);
    if (!part || part === 'b') await fanOut(server);
  } finally {
    await server.stop();
  }
}

export default async function bench() {
  await suite('PGlite (in process)');
  const cluster = await startCluster();
  try {
    await suite('PostgreSQL 15', cluster.url);
  } finally {
    cluster.stop();
  }
}
