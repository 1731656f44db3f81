/**
 * Builds and serialises 100,000 REST queries with this SDK and with the official
 * postgrest-js (inside @supabase/supabase-js), in the same run, and prints the ratio.
 * Serialising means producing the method, URL and headers a request would carry; nothing
 * is sent.
 */
import { createClient } from '@supabase/supabase-js';
import WebSocket from 'ws';
import { createRestClient } from '../src/rest/index';

const N = 100_000;
const URL_ = 'http://127.0.0.1:54321';
const KEY = 'anon';

// biome-ignore lint/suspicious/noExplicitAny: both clients are driven untyped
type Any = any;
const query = (c: Any, i: number) =>
  c
    .from('files')
    .select('id, name, size, owner:profiles(name)', { count: 'exact' })
    .eq('folder_id', i)
    .in('kind', ['image', 'video', 'a,b'])
    .or('size.gt.100,name.ilike.*x*')
    .order('name', { ascending: false })
    .range(i, i + 49);

function time(label: string, build: (i: number) => unknown): number {
  for (let i = 0; i < 2_000; i++) build(i); // warm-up
  const start = performance.now();
  let sink = 0;
  for (let i = 0; i < N; i++) sink += String(build(i)).length;
  const ms = performance.now() - start;
  console.log(
    `${label.padEnd(36)} ${ms.toFixed(0).padStart(6)} ms  ${((N / ms) * 1000).toFixed(0).padStart(8)} queries/s  (${sink > 0 ? 'ok' : '?'})`,
  );
  return ms;
}

export default async function bench(): Promise<void> {
  const ours = createRestClient(URL_, KEY);
  const official = createClient(URL_, KEY, {
    auth: { persistSession: false, autoRefreshToken: false },
    realtime: { transport: WebSocket as never },
  });
  console.log(`build + serialise ${N.toLocaleString('en')} queries (method, URL, headers)`);
  // Alternating rounds, best of three each: the machine is shared, so one round can be unlucky.
  let a = Number.POSITIVE_INFINITY;
  let b = Number.POSITIVE_INFINITY;
  for (let round = 1; round <= 3; round++) {
    a = Math.min(
      a,
      time(`round ${round} @app/backend-sdk/rest`, (i) => query(ours, i).toRequest().url),
    );
    b = Math.min(
      b,
      time(`round ${round} postgrest-js 2.109`, (i) => {
        const q = query(official, i) as Any;
        // postgrest-js keeps its request in public fields; reading them is its serialisation.
        return `${q.method} ${q.url.toString()} ${[...q.headers.entries()].length}`;
      }),
    );
  }
  console.log(
    `best: ours ${a.toFixed(0)} ms (${((N / a) * 1000).toFixed(0)}/s), postgrest-js (anchor) ${b.toFixed(0)} ms (${((N / b) * 1000).toFixed(0)}/s)`,
  );
  console.log(`ratio: ours takes ${(a / b).toFixed(2)}× the official client's time`);
}
