/**
 * `pnpm bench` in a workspace: runs every `bench/*.bench.ts` of the current package in name
 * order (or only those whose names contain an argument, e.g. `pnpm bench rest`). Each prints
 * its figures next to the anchor it is measured against, in the same run.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const dir = join(process.cwd(), 'bench');
const filters = process.argv.slice(2);
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort();
if (files.length === 0) {
  console.error(`no bench/*.bench.ts${filters.length ? ` matching ${filters.join(', ')}` : ''}`);
  process.exit(1);
}

for (const file of files) {
  console.log(`\n━━ ${file}`);
  const mod = (await import(pathToFileURL(join(dir, file)).href)) as {
    default: () => Promise<void>;
  };
  await mod.default();
}
