// The whole test command: every check CI runs, stopping at the first failure.
// Ends with one summary line of all vitest reports: "tests: N passed, N failed".
//
// After the installs and lint, two lanes run side by side, each in order:
// - the server's suites (the longest step: they resolve every package to its source, so they
//   need no build, and most of their time is spent waiting on servers, databases and timers);
// - typecheck, build, the other workspaces' suites, the package checks and budgets, then the
//   browser end-to-end tests (which need the build).
// The first failing step stops the other lane.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

process.env.TURBO_TELEMETRY_DISABLED = '1';

const SERVER = '@app/backend-server';

const setup = [
  ['browser for end-to-end tests', 'node', ['scripts/ensure-chromium.mjs']],
  ['PostgreSQL server binaries', 'node', ['scripts/ensure-postgres.mjs']],
  ['PgBouncer and HAProxy (replica suites)', 'node', ['scripts/ensure-proxies.mjs']],
  ['Ceph radosgw (S3 backend suites)', 'node', ['scripts/ensure-ceph.mjs']],
  ['lint + format (biome)', 'pnpm', ['lint']],
];

const lanes = [
  [
    [
      'server unit + integration tests',
      'pnpm',
      ['exec', 'turbo', 'run', 'test', `--filter=${SERVER}`],
    ],
  ],
  [
    ['typecheck', 'pnpm', ['typecheck']],
    ['build', 'pnpm', ['build']],
    [
      'unit + integration tests (other workspaces)',
      'pnpm',
      ['exec', 'turbo', 'run', 'test', `--filter=!${SERVER}`],
    ],
    ['package checks (publint --strict, attw)', 'pnpm', ['check:packages']],
    ['SDK size budgets', 'pnpm', ['size']],
    ['web app initial JS budget', 'pnpm', ['-F', 'web', 'size']],
    ['console initial JS budget', 'pnpm', ['-F', 'console', 'size']],
    ['release dry run (offline)', 'pnpm', ['release:dry-run']],
    ['browser end-to-end tests', 'pnpm', ['e2e']],
  ],
];

const reports = ['packages', 'apps'].flatMap((dir) =>
  readdirSync(dir).flatMap((name) =>
    ['test-report.json', 'e2e-report.json'].map((file) => join(dir, name, '.artifacts', file)),
  ),
);
for (const report of reports) rmSync(report, { force: true });

/** Running steps' process groups, stopped when another step fails. */
const running = new Set();
let failed = false;

function stopAll(signal = 'SIGTERM') {
  for (const pid of running) {
    try {
      process.kill(-pid, signal);
    } catch {}
  }
}
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    stopAll(signal);
    process.exit(130);
  });
}

/** Runs one step in its own process group; resolves once it is done, exits on failure. */
function step([title, cmd, args]) {
  console.log(`\n━━ ${title}: ${cmd} ${args.join(' ')}`);
  const t0 = Date.now();
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: 'inherit', detached: true });
    running.add(child.pid);
    let settled = false;
    const done = (status) => {
      if (settled) return;
      settled = true;
      running.delete(child.pid);
      const seconds = ((Date.now() - t0) / 1000).toFixed(1);
      if (failed) return;
      if (status !== 0) {
        failed = true;
        console.error(`\n✗ ${title} failed (exit ${status}) after ${seconds}s`);
        stopAll();
        process.exit(status || 1);
      }
      console.log(`✓ ${title} (${seconds}s)`);
      resolve();
    };
    child.on('error', () => done(127));
    child.on('exit', (code) => done(code ?? 1));
  });
}

const started = Date.now();
for (const s of setup) await step(s);
await Promise.all(
  lanes.map(async (lane) => {
    for (const s of lane) await step(s);
  }),
);

let passed = 0;
let failedTests = 0;
let skipped = 0;
for (const report of reports.filter((path) => existsSync(path))) {
  const json = JSON.parse(readFileSync(report, 'utf8'));
  passed += json.numPassedTests;
  failedTests += json.numFailedTests;
  skipped += json.numPendingTests + (json.numTodoTests ?? 0);
}
console.log(`\nall checks passed in ${((Date.now() - started) / 1000).toFixed(0)}s`);
console.log(`tests: ${passed} passed, ${failedTests} failed, ${skipped} skipped`);
if (failedTests > 0 || passed === 0) process.exit(1);
