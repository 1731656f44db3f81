/**
 * `pnpm start`: Drive on one machine. Starts @app/backend-server on embedded PGlite with
 * Drive's backend (apps/web/backend: migrations, seed, functions; data kept under the
 * git-ignored `.data/` at the repository root; passwords of at least 8 characters), serves
 * the built web app, and prints the URL to open and the demo account. Ctrl-C stops both.
 * User tokens are signed with an ES256 key, as on a hosted project today: made once and
 * kept in `<data dir>/signing_keys.json` (what `backend-server gen signing-key --append`
 * writes), so sessions survive restarts.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateSigningKey, type SigningKeyJwk, startServer } from '@app/backend-server';
import { serveStatic } from '../e2e/static-server';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const backendPort = Number(process.env.BACKEND_PORT ?? 54321);
const webPort = Number(process.env.PORT ?? 5173);

const dataDir = process.env.DRIVE_DATA_DIR ?? here('../../../.data');

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

const backend = await startServer({
  port: backendPort,
  dataDir,
  signingKeys: await signingKeys(),
  migrationsDir: here('../backend/migrations'),
  seedFile: here('../backend/seed.sql'),
  functionsDir: here('../backend/functions'),
  auth: { passwordMinLength: 8 },
}).catch((error: unknown) => {
  console.error(`Could not start the backend: ${error instanceof Error ? error.message : error}`);
  process.exit(1);
});
const site = await serveStatic(here('../dist'), { port: webPort }).catch(async (error: unknown) => {
  console.error(`Could not serve the web app: ${error instanceof Error ? error.message : error}`);
  await backend.stop();
  process.exit(1);
});

console.log(`
  Drive is running: ${site.url}

  Demo account:  demo@example.com / drive-demo-password
  Backend:       ${backend.url} (anon key ${backend.anonKey.slice(0, 16)}…)
  Signing key:   ${backend.signingKeys.current().alg} ${backend.signingKeys.current().kid}
  Mail outbox:   ${backend.url}/_dev/mail (sign-up confirmations, password resets)

  Press Ctrl-C to stop.
`);

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, async () => {
    if (stopping) return;
    stopping = true;
    await site.close();
    await backend.stop();
    process.exit(0);
  });
}
