// Makes sure the replica suites (packages/backend-server/test/replicas) have their proxies:
// Debian's PgBouncer (transaction pooling in front of PostgreSQL) and HAProxy (in front of
// server replicas), at /usr/sbin. When missing and we are root on Debian, installs the
// `pgbouncer` and `haproxy` packages; the suites start their own processes, so the services
// the packages register are stopped.
import { execSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const wanted = { pgbouncer: '/usr/sbin/pgbouncer', haproxy: '/usr/sbin/haproxy' };
const missing = Object.entries(wanted)
  .filter(([, bin]) => !existsSync(bin))
  .map(([name]) => name);
if (missing.length === 0) {
  console.log(`proxies: ${Object.values(wanted).join(', ')}`);
} else if (process.getuid?.() === 0 && existsSync('/usr/bin/apt-get')) {
  const packages = missing.join(' ');
  console.log(`proxies: not found, installing Debian packages ${packages} …`);
  const install = `DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ${packages}`;
  execSync(`(${install} || (apt-get update -qq && ${install}))`, { stdio: 'inherit' });
  for (const name of missing) execSync(`(service ${name} stop || true) >/dev/null 2>&1`);
} else {
  console.error(
    `proxies: ${missing.join(' and ')} not found. Install them (Debian: \`sudo apt-get install -y pgbouncer haproxy\`).`,
  );
  process.exit(1);
}
