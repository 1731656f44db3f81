/**
 * Uploading a 256 MiB file in Chromium, same page, same server, same bytes:
 * - Drive's uploader: picked in the app (file input → begin_upload → the SDK's tus upload in
 *   6 MiB chunks → ready), from the input's change to the row saying done;
 * - tus-js-client's browser build (`dist/tus.min.js`), configured as the hosted platform's
 *   guide does (6 MiB chunks, data with the creation request), after the same begin_upload;
 * - one raw `fetch` of the whole file to the storage API (a POST, which creates the object:
 *   this API's PUT replaces an existing one), after the same begin_upload.
 * Three rounds in rotating order; medians. Goals (issue 17): Drive ≥ 1.25× tus-js-client's
 * speed and ≥ 0.8× the single request's.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { signUpNewUser, startStack } from '../e2e/stack';

const MiB = 1024 * 1024;
const SIZE = 256 * MiB;
const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
const file = here('../.artifacts/inputs/bench-256.bin');
const tusBuild = fileURLToPath(import.meta.resolve('tus-js-client/dist/tus.min.js'));

type Way = 'drive' | 'tus-js-client' | 'fetch';

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
      return performance.now() - started;
    })(${JSON.stringify({ url, anonKey, name, size: SIZE })})`,
  ) as Promise<number>;
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
      return performance.now() - started;
    })(${JSON.stringify({ url, anonKey, name, size: SIZE })})`,
  ) as Promise<number>;
}

/** Drive's own uploader: from the picker's change to the tray row saying done. */
async function viaDrive(page: Page, round: number) {
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
          resolve(performance.now() - started);
        }
      });
      observer.observe(document.body, { subtree: true, childList: true, attributes: true });
    })`,
  ) as Promise<number>;
  await page.waitForTimeout(50);
  await page.getByTestId('file-picker').setInputFiles(file);
  const ms = await timing;
  await page.getByRole('button', { name: 'Clear done' }).click();
  void round;
  return ms;
}

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
    const results: Record<Way, number[]> = { drive: [], 'tus-js-client': [], fetch: [] };
    const orders: Way[][] = [
      ['fetch', 'tus-js-client', 'drive'],
      ['tus-js-client', 'drive', 'fetch'],
      ['drive', 'fetch', 'tus-js-client'],
    ];
    for (const [round, order] of orders.entries()) {
      for (const way of order) {
        const name = `${way}-${round}.bin`;
        const ms =
          way === 'drive'
            ? await viaDrive(page, round)
            : way === 'fetch'
              ? await viaFetch(page, url, anonKey, name)
              : await viaTusJs(page, url, anonKey, name);
        results[way].push(ms);
        console.log(`  round ${round + 1}  ${way.padEnd(14)} ${(ms / 1000).toFixed(2)} s`);
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[1] ?? Number.NaN;
    const mbps = (ms: number) => (SIZE / MiB / (ms / 1000)).toFixed(0);
    const m = {
      drive: median(results.drive),
      tus: median(results['tus-js-client']),
      fetch: median(results.fetch),
    };
    console.log(`256 MiB upload in Chromium (median of 3; load average ${loadBefore} → ${load()})`);
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
  } finally {
    await stack.stop();
  }
}
