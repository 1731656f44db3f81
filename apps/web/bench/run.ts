/**
 * `pnpm bench`: builds the app, then runs every `bench/*.bench.ts` in name order (or those
 * whose names contain an argument). Each prints its figures next to the anchor it is
 * measured against, in the same run.
 */
import { readdirSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const dir = fileURLToPath(new URL('.', import.meta.url));
const filters = process.argv.slice(2);
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort();

for (const file of files) {
  console.log(`\n━━ ${file}`);
  const mod = (await import(pathToFileURL(`${dir}${file}`).href)) as {
    default: () => Promise<void>;
  };
  await mod.default();
}
