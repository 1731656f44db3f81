// Makes sure the S3 backend's suites have a real S3 server to run against: Ceph's radosgw
// on a single-node cluster the test setup starts in a temp dir (one mon, one mgr, one OSD,
// radosgw). When the daemons are missing and we are root on Debian, installs Debian's
// `ceph-mon ceph-mgr ceph-osd radosgw` (no recommends, ~64 MB). Without them those suites
// are skipped, saying so; nothing else needs Ceph.
import { execSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const BINARIES = ['ceph-mon', 'ceph-mgr', 'ceph-osd', 'radosgw', 'radosgw-admin', 'ceph'];
const PACKAGES = 'ceph-mon ceph-mgr ceph-osd radosgw';
const missing = () => BINARIES.filter((name) => !existsSync(`/usr/bin/${name}`));

if (missing().length === 0) {
  console.log('ceph: installed (radosgw for the S3 backend suites)');
} else if (process.getuid?.() === 0 && existsSync('/usr/bin/apt-get')) {
  console.log(`ceph: ${missing().join(', ')} not found, installing Debian packages ${PACKAGES} …`);
  const install = `DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ${PACKAGES}`;
  try {
    execSync(`(${install} || (apt-get update -qq && ${install}))`, { stdio: 'inherit' });
  } catch {
    console.warn(
      'ceph: the packages could not be installed; the S3 backend suites will be skipped',
    );
  }
  if (missing().length > 0) console.warn(`ceph: still missing ${missing().join(', ')}`);
} else {
  console.warn(
    `ceph: ${missing().join(', ')} not found; the S3 backend suites will be skipped (Debian: \`sudo apt-get install -y --no-install-recommends ${PACKAGES}\`).`,
  );
}
