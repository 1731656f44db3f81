// Makes sure the suites that run against a real PostgreSQL have its server binaries:
// PG_BIN, else /usr/lib/postgresql/<version>/bin. When missing and we are root on Debian,
// installs Debian's `postgresql` package (the test setup starts its own temp cluster).
// Also pgTAP (`db test`; PGlite reads its SQL from the same share directory): Debian's
// `postgresql-<version>-pgtap`, installed the same way when missing. And Debian's real pg_cron
// package, fetched and unpacked into a cache (not installed) for the test that runs on it.
import { execSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const dirs = process.env.PG_BIN
  ? [process.env.PG_BIN]
  : existsSync('/usr/lib/postgresql')
    ? readdirSync('/usr/lib/postgresql').map((v) => `/usr/lib/postgresql/${v}/bin`)
    : [];
const found = dirs.find((dir) => existsSync(join(dir, 'initdb')));
if (found) {
  console.log(`postgresql: ${found}`);
} else if (!process.env.PG_BIN && process.getuid?.() === 0 && existsSync('/usr/bin/apt-get')) {
  console.log('postgresql: server binaries not found, installing Debian package `postgresql` …');
  execSync(
    'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql && (service postgresql stop || true)',
    { stdio: 'inherit' },
  );
} else {
  console.error(
    'postgresql: server binaries not found. Install them (Debian: `sudo apt-get install -y postgresql`) or set PG_BIN.',
  );
  process.exit(1);
}

// pgTAP beside each Debian server version found (or just installed).
const canInstall = process.getuid?.() === 0 && existsSync('/usr/bin/apt-get');
const versions = existsSync('/usr/share/postgresql')
  ? readdirSync('/usr/share/postgresql').filter((v) => /^\d+$/.test(v))
  : [];
const missingPgtap = versions.filter(
  (v) => !existsSync(join('/usr/share/postgresql', v, 'extension', 'pgtap.control')),
);
if (versions.length > 0 && missingPgtap.length === 0) {
  console.log('pgtap: installed');
} else if (missingPgtap.length > 0 && canInstall) {
  const packages = missingPgtap.map((v) => `postgresql-${v}-pgtap`).join(' ');
  console.log(`pgtap: not found, installing Debian package ${packages} …`);
  try {
    execSync(
      `(DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ${packages} || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ${packages}))`,
      { stdio: 'inherit' },
    );
  } catch {
    // `db test` then says pgTAP is missing; the rest of the suites do not need it.
    console.warn(`pgtap: ${packages} could not be installed`);
  }
} else {
  console.warn(
    'pgtap: not found; `db test` needs it (Debian: `sudo apt-get install -y postgresql-15-pgtap`).',
  );
}

// Debian's real pg_cron (`postgresql-<version>-cron`), for the one test that runs the server on
// it (packages/backend-server/test/db/cron-real.test.ts): fetched and unpacked into
// node_modules/.cache/postgresql-<version>-cron, never installed. Installed, its control file
// would take the place of the server's own pg_cron in the share directory every other test
// cluster uses. The test builds a separate installation tree from this copy; without it, it
// skips and says why.
const cache = join(import.meta.dirname, '..', 'node_modules', '.cache');
for (const v of versions) {
  const pkg = `postgresql-${v}-cron`;
  const dir = join(cache, pkg);
  const unpacked = [
    join(dir, 'usr', 'lib', 'postgresql', v, 'lib', 'pg_cron.so'),
    join(dir, 'usr', 'share', 'postgresql', v, 'extension', 'pg_cron.control'),
  ];
  if (unpacked.every((file) => existsSync(file))) {
    console.log(`${pkg}: unpacked in ${dir}`);
    continue;
  }
  if (!existsSync('/usr/bin/apt-get') || !existsSync('/usr/bin/dpkg-deb')) {
    console.warn(`${pkg}: not fetched (needs apt-get and dpkg-deb); its test will skip`);
    continue;
  }
  const download = join(cache, `${pkg}.download`);
  try {
    rmSync(download, { recursive: true, force: true });
    mkdirSync(download, { recursive: true });
    const quiet = { cwd: download, stdio: 'pipe' };
    try {
      execSync(`apt-get download -qq ${pkg}`, quiet);
    } catch (error) {
      // Package lists not fetched yet (a fresh machine): root may fetch them.
      if (!canInstall) throw error;
      execSync(`apt-get update -qq && apt-get download -qq ${pkg}`, quiet);
    }
    const deb = readdirSync(download).find((f) => f.endsWith('.deb'));
    if (!deb) throw new Error('apt-get download left no .deb');
    rmSync(dir, { recursive: true, force: true });
    execSync(`dpkg-deb -x ${JSON.stringify(join(download, deb))} ${JSON.stringify(dir)}`, quiet);
    if (!unpacked.every((file) => existsSync(file)))
      throw new Error(`${deb} lacks pg_cron's files`);
    console.log(`${pkg}: fetched ${deb}, unpacked in ${dir}`);
  } catch (error) {
    const stderr = error?.stderr?.toString().trim();
    console.warn(`${pkg}: could not be fetched (${stderr || error.message}); its test will skip`);
  } finally {
    rmSync(download, { recursive: true, force: true });
  }
}
