// The whole test command: every check CI runs, in order, stopping at the first failure.
// Ends with one summary line of all vitest reports: "tests: N passed, N failed".
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

process.env.TURBO_TELEMETRY_DISABLED = '1';

const steps = [
  ['browser for end-to-end tests', 'node', ['scripts/ensure-chromium.mjs']],
  ['PostgreSQL server binaries', 'node', ['scripts/ensure-postgres.mjs']],
  ['PgBouncer and HAProxy (replica suites)', 'node', ['scripts/ensure-proxies.mjs']],
  ['Ceph radosgw (S3 backend suites)', 'node', ['scripts/ensure-ceph.mjs']],
  ['lint + format (biome)', 'pnpm', ['lint']],
  ['typecheck', 'pnpm', ['typecheck']],
  ['build', 'pnpm', ['build']],
  ['unit + integration tests', 'pnpm', ['test']],
  ['package checks (publint --strict, attw)', 'pnpm', ['check:packages']],
  ['SDK size budgets', 'pnpm', ['size']],
  ['web app initial JS budget', 'pnpm', ['-F', 'web', 'size']],
  ['console initial JS budget', 'pnpm', ['-F', 'console', 'size']],
  ['release dry run (offline)', 'pnpm', ['release:dry-run']],
  ['browser end-to-end tests', 'pnpm', ['e2e']],
];

const reports = ['packages', 'apps'].flatMap((dir) =>
  readdirSync(dir).flatMap((name) =>
    ['test-report.json', 'e2e-report.json'].map((file) => join(dir, name, '.artifacts', file)),
  ),
);
for (const report of reports) rmSync(report, { force: true });

const started = Date.now();
for (const [title, cmd, args] of steps) {
  console.log(`\n━━ ${title}: ${cmd} ${args.join(' ')}`);
  const t0 = Date.now();
  const { status } = spawnSync(cmd, args, { stdio: 'inherit' });
  const seconds = ((Date.now() - t0) / 1000).toFixed(1);
  if (status !== 0) {
    console.error(`\n✗ ${title} failed (exit ${status}) after ${seconds}s`);
    process.exit(status || 1);
  }
  console.log(`✓ ${title} (${seconds}s)`);
}

let passed = 0;
let failed = 0;
let skipped = 0;
for (const report of reports.filter((path) => existsSync(path))) {
  const json = JSON.parse(readFileSync(report, 'utf8'));
  passed += json.numPassedTests;
  failed += json.numFailedTests;
  skipped += json.numPendingTests + (json.numTodoTests ?? 0);
}
console.log(`\nall checks passed in ${((Date.now() - started) / 1000).toFixed(0)}s`);
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
if (failed > 0 || passed === 0) process.exit(1);
