// Makes sure the suites that run against a real PostgreSQL have its server binaries:
// PG_BIN, else /usr/lib/postgresql/<version>/bin. When missing and we are root on Debian,
// installs Debian's `postgresql` package (the test setup starts its own temp cluster).
// Also pgTAP (`db test`; PGlite reads its SQL from the same share directory): Debian's
// `postgresql-<version>-pgtap`, installed the same way when missing.
import { execSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
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
