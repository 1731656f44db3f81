/**
 * Uploading a 256 MiB file in Chromium, same page, same server, same bytes:
 * - Drive's uploader: picked in the app (file input → begin_upload → the SDK's tus upload in
 *   6 MiB chunks → ready), from the input's change to the row saying done;
 * - tus-js-client's browser build (`dist/tus.min.js`), configured as the hosted platform's
 *   guide does (6 MiB chunks, data with the creation request), after the same begin_upload;
 * - one raw `fetch` of the whole file to the storage API (a POST, which creates the object:
 *   this API's PUT replaces an existing one), after the same begin_upload.
 * `BENCH_ROUNDS` rounds (default 5) in rotating order; medians; each upload is deleted after it
 * (untimed, see `forget`). Goals (issue 17): Drive ≥ 1.25×
 * tus-js-client's speed and ≥ 0.8× the single request's. Each way's time is also split, from
 * the page's resource timing, into what came before the first byte of the file went out, the
 * upload requests (their median duration and the median gap between an answer and the next
 * request) and what followed the last answer until the upload counted as done.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { RunningServer } from '@app/backend-server';
import type { Page } from 'playwright-core';
import { signUpNewUser, startStack } from '../e2e/stack';

const MiB = 1024 * 1024;
const SIZE = 256 * MiB;
const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
const file = here('../.artifacts/inputs/bench-256.bin');
const tusBuild = fileURLToPath(import.meta.resolve('tus-js-client/dist/tus.min.js'));

type Way = 'drive' | 'tus-js-client' | 'fetch';
/** One upload: how long it took, from when (the page's clock). */
interface Run {
  ms: number;
  started: number;
}
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const exec = promisify(execFile);

/** In the page: the token, and a placeholder row for `name` (as Drive's uploader makes). */
const PREPARE = `(async ({ url, anonKey, name, size }) => {
  const key = Object.keys(localStorage).find((k) => k.includes('auth'));
  const token = JSON.parse(localStorage.getItem(key)).access_token;
  const headers = { apikey: anonKey, authorization: 'Bearer ' + token };
  const res = await fetch(url + '/rest/v1/rpc/begin_upload', {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json', accept: 'application/vnd.pgrst.object+json' },
    body: JSON.stringify({ p_folder_id: null, p_name: name, p_size: size }),
  });
  if (!res.ok) throw new Error('begin_upload ' + res.status + ' ' + (await res.text()));
  return { headers, row: await res.json() };
})`;

async function viaFetch(page: Page, url: string, anonKey: string, name: string) {
  return page.evaluate(
    `(async (args) => {
      const input = document.getElementById('bench-input');
      const started = performance.now();
      const { headers, row } = await ${PREPARE}(args);
      const path = row.object_path.split('/').map(encodeURIComponent).join('/');
      const res = await fetch(args.url + '/storage/v1/object/files/' + path, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/octet-stream' },
        body: input.files[0],
      });
      if (!res.ok) throw new Error('upload ' + res.status + ' ' + (await res.text()));
      await res.arrayBuffer();
      return { ms: performance.now() - started, started };
    })(${JSON.stringify({ url, anonKey, name, size: SIZE })})`,
  ) as Promise<Run>;
}

async function viaTusJs(page: Page, url: string, anonKey: string, name: string) {
  return page.evaluate(
    `(async (args) => {
      const input = document.getElementById('bench-input');
      const started = performance.now();
      const { headers, row } = await ${PREPARE}(args);
      await new Promise((resolve, reject) => {
        const upload = new tus.Upload(input.files[0], {
          endpoint: args.url + '/storage/v1/upload/resumable',
          retryDelays: [0, 1000, 3000, 5000],
          headers: { ...headers, 'x-upsert': 'false' },
          uploadDataDuringCreation: true,
          removeFingerprintOnSuccess: true,
          metadata: {
            bucketName: 'files',
            objectName: row.object_path,
            contentType: 'application/octet-stream',
            cacheControl: '3600',
          },
          chunkSize: 6 * 1024 * 1024,
          onError: reject,
          onSuccess: resolve,
        });
        upload.start();
      });
      return { ms: performance.now() - started, started };
    })(${JSON.stringify({ url, anonKey, name, size: SIZE })})`,
  ) as Promise<Run>;
}

/** Drive's own uploader: from the picker's change to the tray row saying done. */
async function viaDrive(page: Page) {
  const timing = page.evaluate(
    `new Promise((resolve) => {
      const input = document.querySelector('[data-testid="file-picker"]');
      let started = 0;
      input.addEventListener('change', () => { started = performance.now(); }, { once: true, capture: true });
      const done = () => document.querySelectorAll('.tray li.upload .upload-state[data-state="done"]').length;
      const before = done();
      const observer = new MutationObserver(() => {
        if (started && done() > before) {
          observer.disconnect();
          resolve({ ms: performance.now() - started, started });
        }
      });
      observer.observe(document.body, { subtree: true, childList: true, attributes: true });
    })`,
  ) as Promise<Run>;
  await page.waitForTimeout(50);
  await page.getByTestId('file-picker').setInputFiles(file);
  const run = await timing;
  await page.getByRole('button', { name: 'Clear done' }).click();
  return run;
}

/**
 * Where the time of one upload went, from the page's resource timing: the requests before
 * the first byte of the file went out (and how long that took), each upload request's
 * duration (bytes out, server, answer) and the gap from one answer to the next request, and
 * what followed the last answer until the upload counted as done.
 */
interface Profile {
  before: number;
  requestsBefore: number;
  chunks: number;
  chunk: number;
  gap: number;
  after: number;
}

async function profile(page: Page, run: Run): Promise<Profile> {
  const entries = (await page.evaluate(`performance.getEntriesByType('resource').map((e) => ({
    name: e.name, start: e.startTime, end: e.responseEnd }))`)) as Array<{
    name: string;
    start: number;
    end: number;
  }>;
  await page.evaluate('performance.clearResourceTimings()');
  const done = run.started + run.ms;
  const mine = entries.filter((e) => e.start >= run.started - 1 && e.start <= done);
  const upload = mine.filter((e) => /\/storage\/v1\/(upload\/resumable|object\/)/.test(e.name));
  const first = upload[0];
  const last = upload.at(-1);
  const gaps = upload.slice(1).map((e, i) => e.start - (upload[i] as { end: number }).end);
  if (process.env.BENCH_DETAIL) {
    const d = upload.map(
      (e) => `${Math.round(e.start - run.started)}+${Math.round(e.end - e.start)}`,
    );
    console.log(`    requests (start+duration, ms): ${d.join(' ')}`);
  }
  return {
    before: (first?.start ?? done) - run.started,
    requestsBefore: mine.filter((e) => e.start < (first?.start ?? done)).length,
    chunks: upload.length,
    chunk: middle(upload.map((e) => e.end - e.start)),
    gap: middle(gaps),
    after: done - (last?.end ?? done),
  };
}

/**
 * Deletes the objects uploaded so far and writes back what is dirty (untimed), so every
 * upload starts from the same state: the server's page cache holding no earlier upload, and
 * its new file written into memory just freed. Otherwise each 256 MiB upload takes memory the
 * VM may have to get back from its host first, and the rounds drift apart by seconds.
 */
async function forget(server: RunningServer) {
  const { rows } = await server.db.query<{ name: string }>(
    "select name from storage.objects where bucket_id = 'files'",
  );
  if (rows.length > 0) {
    const key = server.serviceRoleKey;
    const res = await fetch(`${server.url}/storage/v1/object/files`, {
      method: 'DELETE',
      headers: { apikey: key, authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prefixes: rows.map((r) => r.name) }),
    });
    if (!res.ok) throw new Error(`could not delete the uploads: ${res.status}`);
  }
  await exec('sync');
}

/** The median (the lower middle of an even count). */
const middle = (xs: number[]) =>
  [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)] ?? Number.NaN;

export default async function bench() {
  mkdirSync(here('../.artifacts/inputs'), { recursive: true });
  writeFileSync(file, randomBytes(SIZE));
  const load = () =>
    loadavg()
      .map((n) => n.toFixed(2))
      .join(' ');
  const loadBefore = load();
  const stack = await startStack();
  try {
    const page = await (await stack.newContext()).newPage();
    await signUpNewUser(page, stack, 'Bench');
    await page.addScriptTag({ path: tusBuild });
    await page.evaluate(() => {
      const input = document.createElement('input');
      input.type = 'file';
      input.id = 'bench-input';
      input.hidden = true;
      document.body.append(input);
    });
    await page.locator('#bench-input').setInputFiles(file);
    const { url, anonKey } = stack.server;
    await page.evaluate('performance.setResourceTimingBufferSize(100000)');
    const results: Record<Way, number[]> = { drive: [], 'tus-js-client': [], fetch: [] };
    const profiles: Record<Way, Profile[]> = { drive: [], 'tus-js-client': [], fetch: [] };
    const ways: Way[] = ['fetch', 'tus-js-client', 'drive'];
    for (let round = 0; round < ROUNDS; round += 1) {
      // Rotating order: each way goes first, second and third in turn.
      const order = ways.map((_, i) => ways[(i + round) % ways.length] as Way);
      for (const way of order) {
        const name = `${way}-${round}.bin`;
        await page.evaluate('performance.clearResourceTimings()');
        const run =
          way === 'drive'
            ? await viaDrive(page)
            : way === 'fetch'
              ? await viaFetch(page, url, anonKey, name)
              : await viaTusJs(page, url, anonKey, name);
        await page.waitForTimeout(200); // the last entries of resource timing
        const p = await profile(page, run);
        await forget(stack.server);
        results[way].push(run.ms);
        profiles[way].push(p);
        console.log(
          `  round ${round + 1}  ${way.padEnd(14)} ${(run.ms / 1000).toFixed(2)} s  (${p.chunks} upload requests)`,
        );
      }
    }
    const mbps = (ms: number) => (SIZE / MiB / (ms / 1000)).toFixed(0);
    const m = {
      drive: middle(results.drive),
      tus: middle(results['tus-js-client']),
      fetch: middle(results.fetch),
    };
    console.log(
      `256 MiB upload in Chromium (median of ${ROUNDS}; load average ${loadBefore} → ${load()})`,
    );
    console.log(
      `  anchor: one fetch request        ${(m.fetch / 1000).toFixed(2)} s  ${mbps(m.fetch)} MiB/s`,
    );
    console.log(
      `  anchor: tus-js-client (browser)  ${(m.tus / 1000).toFixed(2)} s  ${mbps(m.tus)} MiB/s`,
    );
    console.log(
      `  Drive's uploader                 ${(m.drive / 1000).toFixed(2)} s  ${mbps(m.drive)} MiB/s`,
    );
    console.log(
      `  Drive vs tus-js-client: ${(m.tus / m.drive).toFixed(2)}× (goal ≥ 1.25×); vs one request: ${(m.fetch / m.drive).toFixed(2)}× (goal ≥ 0.8×)`,
    );
    console.log('  where the time went (medians over the rounds, ms):');
    console.log(
      '    way             before 1st byte (requests)  per upload request  gap  after last',
    );
    for (const way of ways) {
      const ps = profiles[way];
      const f = (k: keyof Profile) =>
        middle(ps.map((p) => p[k]))
          .toFixed(1)
          .padStart(6);
      console.log(
        `    ${way.padEnd(14)}  ${f('before')} (${middle(ps.map((p) => p.requestsBefore))})${' '.repeat(17)}${f('chunk')}  ${f('gap')}  ${f('after')}`,
      );
    }
  } finally {
    await stack.stop();
  }
}
