// `pnpm conformance`: our own protocol tests of the REST + rpc and storage services, the ones
// that hold @app/backend-server to the hosted services' wire behaviour:
//  - the server's test/rest and test/storage suites (and the request-role security tests),
//    on embedded PGlite and on a real PostgreSQL (a temp cluster the suite starts itself);
//  - the SDK's conformance tests for these areas, which compare its requests and results
//    with the official supabase-js client's against the same server.
// Ends with one line: "conformance: N passed, N failed, N skipped".
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const SERVER = 'packages/backend-server';
const SDK = 'packages/backend-sdk';
const report = (pkg, name) => join(pkg, '.artifacts', `conformance-${name}.json`);

const steps = [
  ['PostgreSQL server binaries', 'node', ['scripts/ensure-postgres.mjs'], null],
  [
    'server REST + rpc and storage suites (PGlite and PostgreSQL)',
    'pnpm',
    [
      '-F',
      '@app/backend-server',
      'exec',
      'vitest',
      'run',
      '--project',
      'pglite',
      '--project',
      'postgres',
      '--maxWorkers=2',
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=.artifacts/conformance-server.json`,
      'test/rest',
      'test/storage',
      'test/db/request-role.test.ts',
    ],
    report(SERVER, 'server'),
  ],
  [
    'SDK against the official client (REST + rpc, storage)',
    'pnpm',
    [
      '-F',
      '@app/backend-sdk',
      'exec',
      'vitest',
      'run',
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=.artifacts/conformance-sdk.json`,
      'test/rest.test.ts',
      'test/storage',
    ],
    report(SDK, 'sdk'),
  ],
];

let passed = 0;
let failed = 0;
let skipped = 0;
let status = 0;
const started = Date.now();
for (const [title, cmd, args, out] of steps) {
  console.log(`\n━━ ${title}: ${cmd} ${args.join(' ')}`);
  if (out) rmSync(out, { force: true });
  const run = spawnSync(cmd, args, { stdio: 'inherit' });
  if (run.status !== 0) status = run.status || 1;
  if (out && existsSync(out)) {
    const json = JSON.parse(readFileSync(out, 'utf8'));
    passed += json.numPassedTests;
    failed += json.numFailedTests;
    skipped += json.numPendingTests + (json.numTodoTests ?? 0);
  } else if (out) {
    console.error(`✗ ${title}: no test report`);
    status ||= 1;
  }
  if (!out && run.status !== 0) break;
}
console.log(`\nconformance finished in ${((Date.now() - started) / 1000).toFixed(0)}s`);
console.log(`conformance: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(status || (failed > 0 || passed === 0 ? 1 : 0));
