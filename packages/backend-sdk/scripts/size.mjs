// Size budgets of the SDK as a browser app would ship it: esbuild, browser, ESM,
// minified, then gzip -9. Fails when an entry is over its budget.
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const budgets = [
  // Final targets (issue: SDK part 2): full client ≤ 24 KB, REST alone ≤ 6 KB.
  {
    name: 'full client (@app/backend-sdk)',
    entry: 'export * from "./src/index.ts";',
    limit: 24 * 1024,
  },
  {
    name: 'REST only (@app/backend-sdk/rest)',
    entry: 'export * from "./src/rest/index.ts";',
    limit: 6 * 1024,
  },
];

let failed = false;
for (const { name, entry, limit } of budgets) {
  const result = await build({
    stdin: { contents: entry, resolveDir: process.cwd(), loader: 'ts' },
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    minify: true,
    target: 'es2022',
    legalComments: 'none',
  });
  const code = result.outputFiles[0].contents;
  const gz = gzipSync(code, { level: 9 }).length;
  const ok = gz <= limit;
  failed ||= !ok;
  console.log(
    `${ok ? 'ok  ' : 'OVER'} ${name}: ${(code.length / 1024).toFixed(2)} KB min, ${(gz / 1024).toFixed(2)} KB min+gz (budget ${(limit / 1024).toFixed(0)} KB, ${((gz / limit) * 100).toFixed(0)}%)`,
  );
}
if (failed) {
  console.error('size check failed: an entry is over its budget');
  process.exit(1);
}
