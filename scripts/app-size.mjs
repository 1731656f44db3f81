// A built web app's initial JS: the entry script of dist/index.html and every chunk it imports
// statically (what the browser must load before the first screen), minified + gzip. Lazy
// chunks (screens, dialogs) are listed apart. Run in the app's folder after `pnpm build`:
//   node ../../scripts/app-size.mjs <budget KB> [base path the app is served under, e.g. /_console/]
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

const BUDGET_KB = Number(process.argv[2]);
if (!(BUDGET_KB > 0)) throw new Error('usage: app-size.mjs <budget KB> [base path]');
const base = process.argv[3] ?? '/';
const dist = join(process.cwd(), 'dist');
const html = readFileSync(join(dist, 'index.html'), 'utf8');
const src = /<script type="module"[^>]*src="([^"]+)"/.exec(html)?.[1];
const entry = src?.startsWith(base) ? src.slice(base.length) : undefined;
if (!entry) throw new Error('dist/index.html has no module script: run `pnpm build` first.');

const gz = (file) => gzipSync(readFileSync(join(dist, file)), { level: 9 }).length;
const initial = new Set();
const visit = (file) => {
  if (initial.has(file)) return;
  initial.add(file);
  const code = readFileSync(join(dist, file), 'utf8');
  // Static imports only: `import … from "./x.js"` / `import "./x.js"` (not `import("./x.js")`).
  for (const m of code.matchAll(
    /(?:^|[;}\s])import\s*(?:[^"'()]*?from\s*)?["']\.\/([^"']+\.js)["']/g,
  )) {
    visit(join('assets', m[1]));
  }
};
visit(entry);

const kb = (bytes) => (bytes / 1024).toFixed(1);
let total = 0;
for (const file of initial) {
  const size = gz(file);
  total += size;
  console.log(`initial  ${kb(size).padStart(6)} KB  ${file}`);
}
const lazy = readdirSync(join(dist, 'assets')).filter(
  (f) => f.endsWith('.js') && !initial.has(join('assets', f)),
);
for (const f of lazy)
  console.log(`lazy     ${kb(gz(join('assets', f))).padStart(6)} KB  assets/${f}`);
console.log(`\ninitial JS: ${kb(total)} KB min+gz (budget ${BUDGET_KB} KB)`);
if (total / 1024 > BUDGET_KB) {
  console.error(`over budget by ${kb(total - BUDGET_KB * 1024)} KB`);
  process.exitCode = 1;
}
