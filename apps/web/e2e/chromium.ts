import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

/**
 * Where Chromium is: `CHROMIUM_PATH`, else Debian's /usr/bin/chromium.
 * Throws with an install hint when it is missing.
 */
export function findChromium(
  env: NodeJS.ProcessEnv = process.env,
  fallback = '/usr/bin/chromium',
): string {
  const path = env.CHROMIUM_PATH || fallback;
  if (existsSync(path)) return path;
  throw new Error(
    `Chromium not found at ${path}${env.CHROMIUM_PATH ? ' (CHROMIUM_PATH)' : ''}. Install it ` +
      'with `apt-get update && apt-get install -y chromium` (as root), or set CHROMIUM_PATH.',
  );
}

/** Launch headless Chromium with the flags this machine needs (Playwright gives it a fresh temp profile). */
export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: findChromium(),
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
