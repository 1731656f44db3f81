import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TOKEN_HEADER } from '../../src/console/index';
import { exportProject } from '../../src/data/portable';
import { startServer } from '../../src/server';
import { builtCli } from '../support/built-cli';
import { DRIVE } from './support';

const PACKAGE = join(import.meta.dirname, '..', '..');
const root = mkdtempSync(join(tmpdir(), 'start-cli-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/**
 * Starts `backend-server start …` as built (or `node --import tsx src/cli.ts` with `fromSource`);
 * resolves once its banner is out.
 */
async function start(
  args: string[],
  fromSource = false,
): Promise<{ child: ChildProcess; banner: string }> {
  const cli = fromSource ? ['--import', 'tsx', join(PACKAGE, 'src', 'cli.ts')] : [await builtCli()];
  const child = spawn(process.execPath, [...cli, 'start', '--port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    cwd: PACKAGE,
    // From source, a shell's bare environment: the test runner's own lets a bare import
    // from the worker's temp folder resolve where a user's shell does not.
    ...(fromSource ? { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' } } : {}),
  });
  let out = '';
  let err = '';
  child.stderr?.on('data', (d) => {
    err += d;
  });
  const banner = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (d) => {
      out += d;
      if (out.includes('service_role key:')) resolve(out);
    });
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${err}`)));
  });
  return { child, banner };
}

/** Sends SIGINT and resolves with what it printed while stopping. */
function stop(child: ChildProcess): Promise<string> {
  let out = '';
  child.stdout?.on('data', (d) => {
    out += d;
  });
  return new Promise((resolve) => {
    child.once('exit', () => resolve(out));
    child.kill('SIGINT');
  });
}

const line = (banner: string, label: string) =>
  new RegExp(`${label}:\\s+(\\S+)`).exec(banner)?.[1] ?? '';

describe('backend-server start', () => {
  it('starts from source with node --import tsx (the PGlite thread, bundled into a temp folder, finds PGlite)', async () => {
    const { child, banner } = await start(['--data-dir', join(root, 'from-source')], true);
    try {
      const health = await fetch(`${line(banner, 'API URL')}/auth/v1/health`, {
        headers: { apikey: line(banner, 'anon key') },
      });
      expect(health.status).toBe(200);
    } finally {
      await stop(child);
    }
  });

  it('prints console and outbox links that work for whoever holds them; the raw outbox keeps its key check', async () => {
    const { child, banner } = await start([]);
    try {
      const mail = new URL(line(banner, 'Mail outbox'));
      const consoleLink = new URL(line(banner, 'Console'));
      expect(mail.pathname).toBe('/_console/mail');
      expect(consoleLink.hash).toBe(mail.hash);
      const token = mail.hash.replace('#token=', '');
      // The console page itself (or, before `pnpm -F console build`, a page saying so).
      const page = await fetch(mail.href.replace(mail.hash, ''));
      expect([200, 503]).toContain(page.status);
      expect(page.headers.get('content-type')).toContain('text/html');
      const session = await fetch(`${mail.origin}/_console/api/session`, {
        headers: { [TOKEN_HEADER]: token },
      });
      expect(session.status).toBe(200);
      const raw = await fetch(`${mail.origin}/_dev/mail`);
      expect(raw.status).toBe(401);
    } finally {
      await stop(child);
    }
  }, 120_000);

  it('imports a folder export at start and exports to it on exit, as the Firebase emulators do', async () => {
    // A folder export of Drive's seeded database.
    const source = await startServer({ port: 0, dataDir: join(root, 'source'), ...DRIVE });
    const folder = join(root, 'emulator-data');
    try {
      await source.db.exec(`insert into public.folders (owner_id, name)
        values ('d0d0d0d0-0000-4000-8000-00000000d3e0', 'Imported folder')`);
      await exportProject(source.db, source.storageDir, folder);
    } finally {
      await source.stop();
    }
    // The same folder in and out (firebase emulators:start --import DIR --export-on-exit DIR).
    const { child, banner } = await start([
      '--import',
      folder,
      '--export-on-exit',
      folder,
      '--data-dir',
      join(root, 'fresh'),
    ]);
    const url = line(banner, 'API URL');
    const key = line(banner, 'service_role key');
    const folders = await fetch(`${url}/rest/v1/folders?select=name&order=name`, {
      headers: { apikey: key },
    });
    expect(await folders.json()).toEqual([
      { name: 'Documents' },
      { name: 'Imported folder' },
      { name: 'Photos' },
    ]);
    await fetch(`${url}/rest/v1/folders`, {
      method: 'POST',
      headers: { apikey: key, 'content-type': 'application/json' },
      body: JSON.stringify({ owner_id: 'd0d0d0d0-0000-4000-8000-00000000d3e0', name: 'Made live' }),
    });
    const said = await stop(child);
    expect(said).toMatch(/exported \d+ rows and 0 objects to/);
    expect(readdirSync(folder).sort()).toEqual(['database.sql', 'manifest.json']);
    // Nothing half written is left beside it.
    expect(readdirSync(root).filter((n) => n.startsWith('.'))).toEqual([]);

    // The folder export now holds the live change; a tar export of it reads the same.
    const check = await startServer({ port: 0, importFile: folder });
    const tar = join(root, 'on-exit.tar');
    try {
      const { rows } = await check.db.query<{ name: string }>(
        'select name from public.folders order by name',
      );
      expect(rows.map((r) => r.name)).toEqual([
        'Documents',
        'Imported folder',
        'Made live',
        'Photos',
      ]);
      await exportProject(check.db, check.storageDir, tar);
    } finally {
      await check.stop();
    }
    const fromTar = await startServer({ port: 0, importFile: tar });
    try {
      const { rows } = await fromTar.db.query('select name from public.folders');
      expect(rows).toHaveLength(4);
    } finally {
      await fromTar.stop();
    }
  }, 300_000);

  it('refuses to start on a bad archive, naming the problem', async () => {
    const error = await start(['--import', join(root, 'nope.tar')]).then(
      () => null,
      (e: Error) => e,
    );
    expect(error?.message).toMatch(/nope\.tar does not exist/);
  }, 60_000);
});
