// Checks a publishable package as it would be published: packs it with pnpm (so
// `workspace:` ranges are rewritten), then runs publint --strict and
// @arethetypeswrong/cli on the tarball. Run from the package directory after a build.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const run = (cmd, args) => execFileSync(cmd, args, { stdio: 'inherit' });
const out = mkdtempSync(join(tmpdir(), 'pack-'));
try {
  execFileSync('pnpm', ['pack', '--pack-destination', out], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const tarball = join(
    out,
    readdirSync(out).find((f) => f.endsWith('.tgz')),
  );
  run('publint', ['run', '--strict', tarball]);
  run('attw', [tarball, '--format', 'table-flipped']);
} finally {
  rmSync(out, { recursive: true, force: true });
}
