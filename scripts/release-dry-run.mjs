// Release dry run, fully offline: what `pnpm release` would publish, without publishing.
// - the version plan from the pending changesets (`changeset status`)
// - for each public workspace package: the packed tarball (pnpm rewrites `workspace:`
//   ranges), its file list checked against `files`, then `pnpm publish --dry-run`
//   against an unreachable registry, proving nothing needs the network
// - private workspaces are listed as never published
// Run after `pnpm build`.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const OFFLINE_REGISTRY = 'http://127.0.0.1:9/';
const ALLOWED = /^package\/(package\.json|README\.md|CHANGELOG\.md|LICENSE|dist\/.+)$/;
const sh = (cmd, args, opts = {}) => execFileSync(cmd, args, { encoding: 'utf8', ...opts });

const workspaces = ['packages', 'apps'].flatMap((dir) =>
  readdirSync(dir)
    .map((name) => join(dir, name))
    .filter((path) => existsSync(join(path, 'package.json'))),
);

const tmp = mkdtempSync(join(tmpdir(), 'release-dry-run-'));
try {
  const statusFile = join(tmp, 'status.json');
  sh('pnpm', ['exec', 'changeset', 'status', '--output', statusFile], { stdio: 'ignore' });
  const plan = JSON.parse(readFileSync(statusFile, 'utf8'));
  console.log(`pending changesets: ${plan.changesets.length}`);
  for (const release of plan.releases) {
    console.log(
      `  ${release.name}: ${release.oldVersion} → ${release.newVersion} (${release.type})`,
    );
  }

  let failures = 0;
  for (const dir of workspaces) {
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    if (pkg.private) {
      console.log(`${pkg.name}: private, never published`);
      continue;
    }
    const out = mkdtempSync(join(tmp, 'pack-'));
    sh('pnpm', ['pack', '--pack-destination', out], { cwd: dir, stdio: 'ignore' });
    const tarball = join(out, readdirSync(out)[0]);
    const files = sh('tar', ['-tzf', tarball]).trim().split('\n');
    const stray = files.filter((file) => !ALLOWED.test(file));
    const manifest = sh('tar', ['-xzOf', tarball, 'package/package.json']);
    const problems = [
      ...stray.map((file) => `unexpected file in tarball: ${file}`),
      ...(manifest.includes('workspace:')
        ? ['packed package.json still has workspace: ranges']
        : []),
      ...(files.some((f) => f.startsWith('package/dist/')) ? [] : ['no dist/ (run pnpm build)']),
    ];
    sh('pnpm', ['publish', '--dry-run', '--no-git-checks', '--registry', OFFLINE_REGISTRY], {
      cwd: dir,
      stdio: 'ignore',
    });
    console.log(`${pkg.name}@${pkg.version}: would publish ${files.length} files`);
    for (const problem of problems) console.error(`  ✗ ${problem}`);
    failures += problems.length;
  }
  if (failures > 0) process.exit(1);
  console.log('release dry run: ok');
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
