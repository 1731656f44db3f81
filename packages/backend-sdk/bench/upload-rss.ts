/**
 * Child process of the upload bench: uploads one file with this SDK while sampling its own
 * memory (`process.memoryUsage()`: RSS, JS heap, external, ArrayBuffers) every 2 ms and after
 * every chunk, and prints `{ baseline, growth, seconds }` as JSON, where `growth` is each
 * figure's peak minus its value before the upload. No `--expose-gc`, no forced collection:
 * the figures are what the runtime holds while uploading. Run in its own process so nothing
 * else lives in the heap it measures.
 */
import { rm, writeFile } from 'node:fs/promises';
import { createHttp } from '../src/http/index';
import { StorageClient } from '../src/storage/index';

const [url, key, file, sizeText] = process.argv.slice(2) as [string, string, string, string];
const http = createHttp({ url, key });
const storage = new StorageClient(http);

// Warm-up: the same code paths (file source, fs thread pool, socket, JIT) with a 2 MiB file,
// less than one chunk, so the baseline includes the machinery but no chunk-sized buffer.
const warmFile = `${file}.warm`;
await writeFile(warmFile, new Uint8Array(2 * 1024 * 1024));
const warm = storage.from('bench').uploadResumable(`rss/warm-${Date.now()}`, warmFile, {
  urlStore: false,
});
await warm.result;
await rm(warmFile);

type Figure = 'rss' | 'heapTotal' | 'external' | 'arrayBuffers';
const figures: Figure[] = ['rss', 'heapTotal', 'external', 'arrayBuffers'];
const baseline = process.memoryUsage();
const peak = { ...baseline };
const sample = () => {
  const now = process.memoryUsage();
  for (const f of figures) peak[f] = Math.max(peak[f], now[f]);
};
const sampler = setInterval(sample, 2);
const started = performance.now();
const upload = storage.from('bench').uploadResumable(`rss/big-${Date.now()}`, file, {
  urlStore: false,
  onChunkComplete: sample,
});
const { data, error } = await upload.result;
clearInterval(sampler);
if (error || data?.size !== Number(sizeText)) {
  console.error(error ?? `uploaded ${data?.size} bytes`);
  process.exit(1);
}
const growth = Object.fromEntries(figures.map((f) => [f, peak[f] - baseline[f]]));
console.log(JSON.stringify({ baseline, growth, seconds: (performance.now() - started) / 1000 }));
