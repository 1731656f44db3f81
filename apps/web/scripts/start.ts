/**
 * `pnpm start`: Drive on one machine. Starts @app/backend-server on embedded PGlite with
 * Drive's backend folder (apps/web/backend, in the hosted CLI's layout: config.toml,
 * migrations, seed, functions; data kept under the git-ignored `.data/` at the repository
 * root, or DRIVE_DATA_DIR), serves the built web app, and prints the URL to open and the demo
 * account. Ctrl-C stops both.
 *
 * PORT (default 5173) is the page's port; BACKEND_PORT the backend's (default: `[api] port`
 * of config.toml, 54321). The page served is told where its backend is at run time, so the
 * same build works on any ports.
 *
 * User tokens are signed with an ES256 key, as on a hosted project today: made once and kept
 * in `<data dir>/signing_keys.json` (what `backend-server gen signing-key --append` writes),
 * so sessions survive restarts. Every 6 hours it empties the Trash of entries older than 30
 * days (`scripts/trash-purge.ts`); every minute it sends sharing's unsent mails
 * (`scripts/mail-sweep.ts`) and reads the text of files waiting for search
 * (`scripts/search-sweep.ts`).
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateSigningKey, type SigningKeyJwk, startServer } from '@app/backend-server';
import { serveStatic } from '../e2e/static-server';
import { scheduleMailSweep } from './mail-sweep';
import { scheduleSearchSweep } from './search-sweep';
import { scheduleTrashPurge } from './trash-purge';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

function port(name: string, fallback?: number): number | undefined {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0 || value > 65535) {
    console.error(`${name} must be a port number (0–65535), not "${text}".`);
    process.exit(1);
  }
  return value;
}

const backendPort = port('BACKEND_PORT');
const webPort = port('PORT', 5173) as number;
const dataDir = process.env.DRIVE_DATA_DIR || here('../../../.data');

/** The project's signing keys: the saved list, or a new ES256 key saved for next time. */
async function signingKeys(): Promise<SigningKeyJwk[]> {
  const file = join(dataDir, 'signing_keys.json');
  try {
    return JSON.parse(await readFile(file, 'utf8')) as SigningKeyJwk[];
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const keys = [generateSigningKey('ES256')];
  await mkdir(dataDir, { recursive: true });
  await writeFile(file, `${JSON.stringify(keys, null, 2)}\n`, { mode: 0o600 });
  return keys;
}

// The page learns its backend at run time (see src/lib/client.ts), so the same build works
// on any ports; `<` is escaped so the values cannot end the script element.
let settings = '{}';
const site = await serveStatic(here('../dist'), {
  port: webPort,
  head: () => `<script>window.__DRIVE_BACKEND__ = ${settings};</script>`,
}).catch((error: unknown) => {
  console.error(`Could not serve the web app: ${error instanceof Error ? error.message : error}`);
  process.exit(1);
});
// A passkey needs a domain, not an IP address: the same page by the name localhost.
const passkeyOrigin = site.url.replace('//127.0.0.1:', '//localhost:');
const backend = await startServer({
  projectDir: here('../backend'),
  ...(backendPort === undefined ? {} : { port: backendPort }),
  dataDir,
  signingKeys: await signingKeys(),
  // Links in mails lead to the page served here. GitHub and Google (config.toml) are
  // emulated: their sign-in is a local page where you pick or type the account. Passkeys
  // work on the page's name (localhost).
  auth: {
    siteUrl: site.url,
    emulateProviders: true,
    webauthn: { rpId: 'localhost', rpDisplayName: 'Drive', rpOrigins: [passkeyOrigin] },
  },
  // Sharing's mails (functions/notify) link to the page served here and go to the outbox.
  functions: { env: { DRIVE_SITE_URL: site.url } },
}).catch(async (error: unknown) => {
  console.error(`Could not start the backend: ${error instanceof Error ? error.message : error}`);
  await site.close();
  process.exit(1);
});
settings = JSON.stringify({ url: backend.url, anonKey: backend.anonKey }).replace(/</g, '\\u003c');

// Trash entries older than 30 days go, every 6 hours (their objects too).
const stopPurge = scheduleTrashPurge(backend.url, backend.serviceRoleKey);
// Sharing's mails that did not go out at once, every minute.
const stopSweep = scheduleMailSweep(backend.url, backend.serviceRoleKey);
// Files whose text search has not read yet (missed or failed), every minute.
const stopIndexing = scheduleSearchSweep(backend.url, backend.serviceRoleKey);

console.log(`
  Drive is running: ${site.url}
  With passkeys:    ${passkeyOrigin}

  Demo account:  demo@example.com / drive-demo-password
  Backend:       ${backend.url} (anon key ${backend.anonKey.slice(0, 16)}…)
  Signing key:   ${backend.signingKeys.current().alg} ${backend.signingKeys.current().kid}
  Console:       ${backend.consoleUrl ?? 'not served'}
  Mail outbox:   ${backend.mailUrl ?? `${backend.url}/_dev/mail`} (sign-up confirmations, password resets, invitations)
  Sign-in:       email, or GitHub and Google emulated (a local page picks the account)

  Press Ctrl-C to stop.
`);

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, async () => {
    if (stopping) return;
    stopping = true;
    stopPurge();
    stopSweep();
    stopIndexing();
    await site.close();
    await backend.stop();
    process.exit(0);
  });
}
