// Size budgets of the SDK as a browser app would ship it: esbuild, browser, ESM,
// minified, then gzip -9. Fails when an entry is over its budget.
//
// Anchors (same settings): supabase-js createClient 55.7 KB, auth-js 23.4 KB,
// postgrest-js 5.2 KB.
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const budgets = [
  {
    name: 'full client (@app/backend-sdk)',
    entry: 'export * from "./src/index.ts";',
    // 24 KB until the `accessToken` option (supabase-js's exact message for `client.auth`
    // does not compress) and error-key parity came in.
    limit: 25 * 1024,
  },
  {
    name: 'auth + REST + functions',
    entry:
      'export * from "./src/auth/index.ts"; export * from "./src/rest/index.ts"; export * from "./src/functions/index.ts";',
    limit: 14 * 1024,
  },
  {
    name: 'WebAuthn helpers (@app/backend-sdk/webauthn)',
    entry: 'export * from "./src/webauthn/index.ts";',
    limit: 4 * 1024,
  },
  {
    name: 'OAuth server: consent, client admin (@app/backend-sdk/oauth-server)',
    entry: 'export * from "./src/oauth-server/index.ts";',
    limit: 2 * 1024,
  },
  {
    name: 'upload queue (@app/backend-sdk/upload-queue)',
    entry: 'export * from "./src/upload-queue/index.ts";',
    limit: 2 * 1024,
  },
  {
    name: 'REST only (@app/backend-sdk/rest)',
    entry: 'export * from "./src/rest/index.ts";',
    limit: 6 * 1024,
  },
];

const sizeOf = async (entry) => {
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
  return { min: code.length, gz: gzipSync(code, { level: 9 }).length };
};

let failed = false;
for (const { name, entry, limit } of budgets) {
  const { min, gz } = await sizeOf(entry);
  const ok = gz <= limit;
  if (!ok) failed = true;
  const budget = ` (budget ${(limit / 1024).toFixed(0)} KB, ${((gz / limit) * 100).toFixed(0)}%)`;
  console.log(
    `${ok ? 'ok  ' : 'OVER'} ${name}: ${(min / 1024).toFixed(2)} KB min, ${(gz / 1024).toFixed(2)} KB min+gz${budget}`,
  );
}
if (failed) {
  console.error('size check failed: an entry is over its budget');
  process.exit(1);
}
