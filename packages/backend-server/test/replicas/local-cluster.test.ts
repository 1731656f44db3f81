/**
 * Drive through `deploy/local-cluster.ts`: three `backend-server start` replicas with the S3
 * backend (the run's radosgw) on one database, behind HAProxy with deploy/haproxy.cfg, running
 * Drive's project (apps/web/backend). Drive's own calls through the balancer with supabase-js
 * and tus-js-client: sign up, an upload in parallel parts (tus concatenation, as Drive
 * uploads), the listing, the download and a public link, byte for byte.
 */
import { randomBytes } from 'node:crypto';
import { createClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type LocalCluster, startLocalCluster } from '../../../../deploy/local-cluster';
import { keysIn, s3Client, s3Server } from '../storage/s3-backend-support';
import { startTus } from '../storage/tus-support';
import { createTestDatabase } from '../support/server';
import { proxiesInstalled } from './proxies';

const MiB = 1024 * 1024;
const ceph = await s3Server();
const skip = !ceph.available ? ceph.reason : !proxiesInstalled() ? 'HAProxy is not installed' : '';
if (skip) console.warn(`local cluster suite skipped: ${skip}`);

/** A browser's client of the cluster (its session kept in memory). */
const browser = (cluster: LocalCluster) =>
  createClient(cluster.url, cluster.anonKey, {
    auth: { persistSession: false, autoRefreshToken: false },
    realtime: { transport: WebSocket as never },
  });

describe.skipIf(skip !== '')('Drive through deploy/local-cluster (3 replicas, radosgw)', () => {
  let cluster: LocalCluster;
  let db: { url: string; drop: () => Promise<void> } | null = null;

  beforeAll(async () => {
    if (!ceph.available) return;
    db = await createTestDatabase();
    if (!db) throw new Error('no PostgreSQL');
    cluster = await startLocalCluster({
      replicas: 3,
      port: 0,
      replicaPort: 0,
      webPort: null,
      databaseUrl: db.url,
      s3: ceph,
    });
  }, 120_000);
  afterAll(async () => {
    await cluster?.stop();
    await db?.drop();
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
});
