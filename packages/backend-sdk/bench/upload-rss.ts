/**
 * Child process of the upload bench: uploads one file with this SDK while sampling its own
 * RSS every 10 ms, and prints `{ baseline, peak, seconds }` as JSON. Run in its own process
 * so nothing else lives in the heap it measures.
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

const baseline = process.memoryUsage().rss;
let peak = baseline;
const sampler = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage().rss);
}, 10);
const started = performance.now();
const upload = storage.from('bench').uploadResumable(`rss/big-${Date.now()}`, file, {
  urlStore: false,
  onChunkComplete: () => {
    peak = Math.max(peak, process.memoryUsage().rss);
  },
});
const { data, error } = await upload.result;
clearInterval(sampler);
if (error || data?.size !== Number(sizeText)) {
  console.error(error ?? `uploaded ${data?.size} bytes`);
  process.exit(1);
}
console.log(JSON.stringify({ baseline, peak, seconds: (performance.now() - started) / 1000 }));
