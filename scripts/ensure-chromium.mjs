// Makes sure the browser tests have a Chromium: CHROMIUM_PATH, else /usr/bin/chromium.
// When neither exists and we are root on Debian, installs Debian's `chromium` package.
import { execSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const wanted = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
if (existsSync(wanted)) {
  console.log(`chromium: ${wanted}`);
} else if (
  !process.env.CHROMIUM_PATH &&
  process.getuid?.() === 0 &&
  existsSync('/usr/bin/apt-get')
) {
  console.log('chromium: not found, installing Debian package `chromium` …');
  execSync('apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium', {
    stdio: 'inherit',
  });
} else {
  console.error(
    `chromium: not found at ${wanted}. Install it (Debian: \`sudo apt-get install -y chromium\`) or set CHROMIUM_PATH.`,
  );
  process.exit(1);
}
