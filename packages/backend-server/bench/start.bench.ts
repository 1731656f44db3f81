/**
 * Fast start (issue: backend-server part 1). A fresh in-memory server with a small
 * migrations dir, from spawn to the first 200 on /auth/v1/health, in a child process so
 * the figure includes module loading; then idle RSS of that process.
 * Goal: ≤ 1.5 s to first 200 (anchor: `supabase start` takes 60–210 s); idle RSS ≤ 500 MB.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// The built CLI, as `pnpm start` and users run it (`pnpm bench` builds first).
const cli = fileURLToPath(new URL('../bin/backend-server.js', import.meta.url));

function migrations(): string {
  const dir = mkdtempSync(join(tmpdir(), 'bench-migrations-'));
  writeFileSync(
    join(dir, '0001_todos.sql'),
    `create table public.todos (id bigint generated always as identity primary key,
       owner_id uuid not null default auth.uid(), title text not null, done boolean default false);
     alter table public.todos enable row level security;
     create policy own on public.todos using (owner_id = auth.uid());`,
  );
  writeFileSync(
    join(dir, '0002_tags.sql'),
    'create table public.tags (id serial primary key, name text unique);',
  );
  return dir;
}

async function once(): Promise<{ ms: number; rssMb: number }> {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [cli, 'start', '--port', '0', '--migrations', migrations()],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const [url, anonKey] = await new Promise<[string, string]>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const url = /API URL:\s+(\S+)/.exec(out)?.[1];
      const key = /anon key:\s+(\S+)/.exec(out)?.[1];
      if (url && key) resolve([url, key]);
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
  for (;;) {
    const res = await fetch(`${url}/auth/v1/health`, { headers: { apikey: anonKey } }).catch(
      () => null,
    );
    if (res?.status === 200) break;
    await new Promise((r) => setTimeout(r, 5));
  }
  const ms = performance.now() - started;
  await new Promise((r) => setTimeout(r, 2000)); // settle to idle
  const status = await import('node:fs/promises').then((fs) =>
    fs.readFile(`/proc/${child.pid}/status`, 'utf8'),
  );
  const rssMb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
  child.kill('SIGINT');
  await new Promise((r) => child.once('exit', r));
  return { ms, rssMb };
}

export default async function bench() {
  await once(); // warm the platform snapshot and OS caches
  const runs = [];
  for (let i = 0; i < 3; i++) runs.push(await once());
  const ms = runs.map((r) => r.ms).sort((a, b) => a - b);
  const rss = Math.max(...runs.map((r) => r.rssMb));
  const median = ms[1] ?? 0;
  console.log(
    `fresh start to first 200 on /auth/v1/health: median ${median.toFixed(0)} ms (runs: ${ms.map((m) => m.toFixed(0)).join(', ')} ms)`,
  );
  console.log(
    `  goal ≤ 1500 ms: ${median <= 1500 ? 'met' : 'NOT met'}; anchor supabase start 60–210 s → ${(60000 / median).toFixed(0)}–${(210000 / median).toFixed(0)}× faster`,
  );
  console.log(`idle RSS: ${rss.toFixed(0)} MB (goal ≤ 500 MB: ${rss <= 500 ? 'met' : 'NOT met'})`);
}
