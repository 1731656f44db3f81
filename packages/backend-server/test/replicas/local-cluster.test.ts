/**
 * Drive through `deploy/local-cluster.ts`: three `backend-server start` replicas with the S3
 * backend (the run's radosgw) on one database, behind HAProxy with deploy/haproxy.cfg, running
 * Drive's project (apps/web/backend). Drive's own calls through the balancer with supabase-js
 * and tus-js-client: sign up, an upload in parallel parts (tus concatenation, as Drive
 * uploads), the listing, the download and a public link, byte for byte. Then Drive's page
 * itself (built here into a temp dir, served by the cluster, pointed at the balancer) in
 * Chromium: sign up, upload, the listing, the preview, a reload.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { findChromium, launchChromium } from '../../../../apps/web/e2e/chromium';
import { makePng } from '../../../../apps/web/e2e/png';
import { type LocalCluster, startLocalCluster } from '../../../../deploy/local-cluster';
import { keysIn, s3Client, s3Server } from '../storage/s3-backend-support';
import { startTus } from '../storage/tus-support';
import { createTestDatabase } from '../support/server';
import { proxiesInstalled } from './proxies';

const MiB = 1024 * 1024;
const ceph = await s3Server();
const skip = !ceph.available ? ceph.reason : !proxiesInstalled() ? 'HAProxy is not installed' : '';
if (skip) console.warn(`local cluster suite skipped: ${skip}`);
const noChromium = (() => {
  try {
    findChromium();
    return '';
  } catch (error) {
    return (error as Error).message;
  }
})();
if (!skip && noChromium) console.warn(`local cluster: Drive's page not tried: ${noChromium}`);

/**
 * Drive's page built into a temp dir (not apps/web/dist: CI's build runs beside this suite).
 * Vite resolves the workspace's packages to their source, so nothing else needs a build.
 */
async function buildDrive(): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'drive-web-'));
  const web = fileURLToPath(new URL('../../../../apps/web/', import.meta.url));
  await promisify(execFile)(
    'pnpm',
    ['exec', 'vite', 'build', '--outDir', dir, '--emptyOutDir', '--logLevel', 'warn'],
    { cwd: web },
  );
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** A browser's client of the cluster (its session kept in memory). */
const browser = (cluster: LocalCluster) =>
  createClient(cluster.url, cluster.anonKey, {
    auth: { persistSession: false, autoRefreshToken: false },
    realtime: { transport: WebSocket as never },
  });

describe.skipIf(skip !== '')('Drive through deploy/local-cluster (3 replicas, radosgw)', () => {
  let cluster: LocalCluster;
  let db: { url: string; drop: () => Promise<void> } | null = null;
  let web: { dir: string; remove: () => Promise<void> } | null = null;

  beforeAll(async () => {
    if (!ceph.available) return;
    [db, web] = await Promise.all([createTestDatabase(), noChromium ? null : buildDrive()]);
    if (!db) throw new Error('no PostgreSQL');
    cluster = await startLocalCluster({
      replicas: 3,
      port: 0,
      replicaPort: 0,
      webPort: web ? 0 : null,
      ...(web ? { webDir: web.dir } : {}),
      databaseUrl: db.url,
      s3: ceph,
    });
  }, 120_000);
  afterAll(async () => {
    await cluster?.stop();
    await db?.drop();
    await web?.remove();
  });

  it('signs up, uploads, lists, downloads and shares a file, byte-identical', async () => {
    const drive = browser(cluster);
    const email = `cluster-${randomBytes(4).toString('hex')}@example.com`;
    const signUp = await drive.auth.signUp({ email, password: 'drive-cluster-password' });
    expect(signUp.error).toBeNull();
    const token = signUp.data.session?.access_token as string;
    expect(token).toBeTruthy();

    // Drive's upload: the files row (begin_upload), the bytes by tus in parallel parts, ready.
    const data = randomBytes(3 * MiB + 12_345);
    const begun = await drive
      .rpc('begin_upload', {
        p_folder_id: null,
        p_name: 'report.bin',
        p_size: data.length,
        p_mime_type: 'application/octet-stream',
      })
      .select('id,object_path')
      .single();
    expect(begun.error).toBeNull();
    const row = begun.data as { id: string; object_path: string };
    const meta = {
      bucketName: 'files',
      objectName: row.object_path,
      contentType: 'application/octet-stream',
    };
    const run = startTus(data, {
      endpoint: `${cluster.url}/storage/v1/upload/resumable`,
      chunkSize: MiB,
      parallelUploads: 2,
      headers: { authorization: `Bearer ${token}`, apikey: cluster.anonKey },
      metadata: meta,
      metadataForPartialUploads: meta,
    });
    await run.done;
    const ready = await drive.from('files').update({ status: 'ready' }).eq('id', row.id).select();
    expect(ready.error).toBeNull();

    const listed = await drive.from('files').select('name,size,status').is('folder_id', null);
    expect(listed.data).toEqual([{ name: 'report.bin', size: data.length, status: 'ready' }]);

    const downloaded = await drive.storage.from('files').download(row.object_path);
    expect(downloaded.error).toBeNull();
    expect(Buffer.from(await (downloaded.data as Blob).arrayBuffer()).equals(data)).toBe(true);

    // A public link, opened by a visitor through the `share` function.
    const expires = new Date(Date.now() + 3600_000).toISOString();
    const share = await drive
      .from('shares')
      .insert({ file_id: row.id, expires_at: expires })
      .select('token')
      .single();
    expect(share.error).toBeNull();
    const visitor = browser(cluster);
    const linkToken = (share.data as { token: string }).token;
    const opened = await visitor.functions.invoke('share', {
      body: { action: 'open', token: linkToken },
    });
    expect(opened.error).toBeNull();
    const { session, ...item } = opened.data as { name: string; size: number; session: string };
    expect(item).toMatchObject({ kind: 'file', name: 'report.bin', size: data.length });
    const download = await visitor.functions.invoke('share', {
      body: { action: 'download', token: linkToken },
      headers: { 'x-link-session': session },
    });
    expect(download.error).toBeNull();
    const link = download.data as { name: string; url: string };
    expect(link.name).toBe('report.bin');
    // Signed by a replica, for the balancer's address (`--public-url`), not the replica's own.
    expect(link.url.startsWith(`${cluster.url}/storage/v1/object/sign/files/`)).toBe(true);
    const viaLink = await fetch(link.url);
    expect(viaLink.status).toBe(200);
    expect(Buffer.from(await viaLink.arrayBuffer()).equals(data)).toBe(true);

    // The bytes are in radosgw's bucket; every replica served requests.
    const keys = await keysIn(
      s3Client(ceph as Extract<typeof ceph, { available: true }>),
      cluster.s3.bucket,
    );
    expect(keys.length).toBeGreaterThan(0);
    const stat = await cluster.balancer.command('show stat');
    for (const r of cluster.replicas) {
      const line = stat.split('\n').find((l) => l.startsWith(`replicas,${r.name},`));
      expect(Number(line?.split(',')[7]), `sessions served by ${r.name}`).toBeGreaterThan(0);
    }
  });

  it("serves Drive's seed: the demo account signs in and sees its folders", async () => {
    const drive = browser(cluster);
    const signIn = await drive.auth.signInWithPassword({
      email: 'demo@example.com',
      password: 'drive-demo-password',
    });
    expect(signIn.error).toBeNull();
    const folders = await drive.from('folders').select('name').order('name');
    expect(folders.data).toEqual([{ name: 'Documents' }, { name: 'Photos' }]);
  });

  it.skipIf(noChromium !== '')(
    "Drive's page through the balancer: sign up, upload, listed, preview, reload",
    async () => {
      expect(cluster.webUrl).toBeTruthy();
      const chromium = await launchChromium();
      try {
        const page = await chromium.newPage({ viewport: { width: 1280, height: 800 } });
        const errors: string[] = [];
        page.on('pageerror', (error) => errors.push(error.message));
        const apiHosts = new Set<string>();
        page.on('request', (r) => {
          if (r.url().includes('/v1/')) apiHosts.add(new URL(r.url()).origin);
        });

        await page.goto(`${cluster.webUrl}/sign-up`);
        await page.getByLabel('Display name').fill('Ada');
        await page.getByLabel('Email').fill(`page-${randomBytes(4).toString('hex')}@example.com`);
        await page.getByLabel('Password').fill('correct horse battery');
        await page.getByRole('button', { name: 'Create account' }).click();
        await page.getByRole('toolbar', { name: 'Folder actions' }).waitFor();

        const png = makePng(64, 48);
        await page
          .getByTestId('file-picker')
          .setInputFiles([{ name: 'photo.png', mimeType: 'image/png', buffer: png }]);
        const row = page.locator('.rows li[data-name="photo.png"]');
        await row.waitFor();
        await page
          .getByRole('region', { name: 'Uploads' })
          .locator('li.upload')
          .filter({ hasText: 'photo.png' })
          .locator('.upload-state[data-state="done"]')
          .waitFor();

        const preview = async () => {
          await page.getByRole('button', { name: /^photo\.png, Image/ }).click();
          const dialog = page.getByRole('dialog', { name: 'photo.png' });
          const img = dialog.getByRole('img', { name: 'photo.png' });
          await img.waitFor();
          await expect
            .poll(() =>
              img.evaluate((el: unknown) => (el as { naturalWidth: number }).naturalWidth),
            )
            .toBe(64);
          await dialog.getByRole('button', { name: 'Close' }).click();
        };
        await preview();

        // A reload: the session and the file are still there (any replica answers).
        await page.reload();
        await row.waitFor();
        await preview();

        expect(errors).toEqual([]);
        // Every API call went to the balancer.
        expect([...apiHosts]).toEqual([cluster.url]);
      } finally {
        await chromium.close();
      }
    },
    90_000,
  );
});
