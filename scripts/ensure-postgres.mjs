// Makes sure the suites that run against a real PostgreSQL have its server binaries:
// PG_BIN, else /usr/lib/postgresql/<version>/bin. When missing and we are root on Debian,
// installs Debian's `postgresql` package (the test setup starts its own temp cluster).
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
