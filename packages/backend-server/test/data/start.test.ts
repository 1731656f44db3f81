import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { TOKEN_HEADER } from '../../src/console/index';
import { startServer } from '../../src/server';
import { DRIVE } from './support';

const CLI = fileURLToPath(new URL('../../src/cli.ts', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'start-cli-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Starts `backend-server start …` from source; resolves once its banner is out. */
async function start(args: string[]): Promise<{ child: ChildProcess; banner: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'start', '--port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
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

  it('imports an archive at start and exports one on exit, as the Firebase emulators do', async () => {
    // An archive of Drive's seeded database.
    const source = await startServer({ port: 0, dataDir: join(root, 'source'), ...DRIVE });
    const archive = join(root, 'seeded.tar');
    try {
      await source.db.exec(`insert into public.folders (owner_id, name)
        values ('d0d0d0d0-0000-4000-8000-00000000d3e0', 'Imported folder')`);
      const { exportArchive } = await import('../../src/data/archive');
      await exportArchive(source.db, source.storageDir, archive);
    } finally {
      await source.stop();
    }
    const exported = join(root, 'on-exit.tar');
    const { child, banner } = await start([
      '--import',
      archive,
      '--export-on-exit',
      exported,
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
    expect(existsSync(exported)).toBe(true);

    const check = await startServer({ port: 0, importFile: exported });
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
    } finally {
      await check.stop();
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
