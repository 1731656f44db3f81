/**
 * Child process of the upload bench: uploads one file with this SDK while sampling its own
 * RSS every 10 ms, and prints `{ baseline, peak, seconds }` as JSON. Run in its own process
 * so nothing else lives in the heap it measures.
 */
import { createHttp } from '../src/http/index';
import { StorageClient } from '../src/storage/index';

const [url, key, file, sizeText] = process.argv.slice(2) as [string, string, string, string];
const http = createHttp({ url, key });
const storage = new StorageClient(http);

// Warm-up: the code paths, the connection pool and the JIT, so the baseline includes them.
const warm = storage
  .from('bench')
  .uploadResumable(`rss/warm-${Date.now()}`, new Blob([new Uint8Array(1024)]), {
    urlStore: false,
  });
await warm.result;

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
