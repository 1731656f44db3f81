/**
 * A PostgreSQL installation of its own with Debian's real pg_cron in it, for the one test that
 * runs the server on a real, preloaded pg_cron (test/db/cron-real.test.ts).
 *
 * scripts/ensure-postgres.mjs unpacks Debian's `postgresql-<version>-cron` package into
 * node_modules/.cache (never installed: its control file would replace the server's own
 * pg_cron in the share directory every other test cluster uses). Here a temp tree mirrors the
 * machine's installation: PostgreSQL finds its share and lib directories relative to the real
 * path of its binaries, so the binaries are hard links or copies (a symlinked bin directory
 * would resolve back to /usr), the rest symlinks to the originals, and pg_cron's module and
 * scripts are added as files of the tree. A cluster started from this tree's bin directory
 * reads extensions from the tree only.
 */
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findPgBin } from './postgres-cluster';

export interface PgCronTree {
  /** The tree's bin directory: start a cluster with `startCluster({ bin })`. */
  bin: string;
  /** The tree's `share/extension` directory (pg_cron's control file is Debian's). */
  extensionDir: string;
  remove(): void;
}

/** Binaries a test cluster runs: initdb, pg_ctl and the server it starts; pg_config to check. */
const BINARIES = ['postgres', 'pg_ctl', 'initdb', 'pg_config'];

const CACHE = fileURLToPath(new URL('../../../../node_modules/.cache/', import.meta.url));

const pgConfig = (bin: string) =>
  execFileSync(join(bin, 'pg_config'), ['--sharedir', '--pkglibdir']).toString().trim().split('\n');

/** Hard link (same file system, allowed) else copy: the tree's binary has a real path of its own. */
function place(from: string, to: string) {
  try {
    linkSync(from, to);
  } catch {
    copyFileSync(from, to);
    chmodSync(to, 0o755);
  }
}

/** `dir` made in the tree: each entry of `source` symlinked, except those `skip` names. */
function mirror(source: string, dir: string, skip: (name: string) => boolean) {
  mkdirSync(dir, { recursive: true });
  for (const name of readdirSync(source))
    if (!skip(name)) symlinkSync(join(source, name), join(dir, name));
}

/** The tree, or why it cannot be made here (the test then skips, saying so). */
export function pgCronTree(): PgCronTree | { skip: string } {
  let bin: string;
  try {
    bin = findPgBin();
  } catch (error) {
    return { skip: (error as Error).message };
  }
  const version = basename(dirname(bin));
  const deb = join(CACHE, `postgresql-${version}-cron`, 'usr');
  const debLib = join(deb, 'lib', 'postgresql', version, 'lib');
  const debExt = join(deb, 'share', 'postgresql', version, 'extension');
  if (!existsSync(join(debLib, 'pg_cron.so')) || !existsSync(join(debExt, 'pg_cron.control')))
    return {
      skip: `Debian's postgresql-${version}-cron is not unpacked in ${CACHE} (run \`node scripts/ensure-postgres.mjs\`)`,
    };
  const [sharedir, pkglibdir] = pgConfig(bin);
  if (!sharedir || !pkglibdir) return { skip: `${bin}/pg_config names no share or lib directory` };

  const root = mkdtempSync(join(tmpdir(), 'pg-cron-tree-'));
  // The cluster runs as `postgres` when we are root: it must read the tree.
  chmodSync(root, 0o755);
  const inTree = (path: string) => join(root, path);
  const remove = () => rmSync(root, { recursive: true, force: true });
  try {
    mkdirSync(inTree(bin), { recursive: true });
    for (const name of BINARIES) place(join(bin, name), join(inTree(bin), name));
    const isCron = (name: string) => name.startsWith('pg_cron');
    mirror(pkglibdir, inTree(pkglibdir), isCron);
    copyFileSync(join(debLib, 'pg_cron.so'), join(inTree(pkglibdir), 'pg_cron.so'));
    mirror(sharedir, inTree(sharedir), (name) => name === 'extension');
    const extensionDir = join(inTree(sharedir), 'extension');
    mirror(join(sharedir, 'extension'), extensionDir, isCron);
    for (const name of readdirSync(debExt))
      copyFileSync(join(debExt, name), join(extensionDir, name));
    const [treeShare, treeLib] = pgConfig(inTree(bin));
    if (treeShare !== inTree(sharedir) || treeLib !== inTree(pkglibdir)) {
      remove();
      return {
        skip: `PostgreSQL in ${bin} is not relocatable (a copy's pg_config says ${treeShare}, ${treeLib})`,
      };
    }
    return { bin: inTree(bin), extensionDir, remove };
  } catch (error) {
    remove();
    return { skip: `cannot build a PostgreSQL tree with pg_cron: ${(error as Error).message}` };
  }
}
