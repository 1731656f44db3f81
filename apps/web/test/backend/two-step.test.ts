/**
 * Drive's 2-step verification rule (backend/migrations/20261125000100_two_step.sql): once a
 * user turns it on, their files, folders, shares and stored objects are readable only by an
 * aal2 session — through the SDK against a real backend-server with Drive's migrations.
 */
import { type Client, createClient } from '@app/backend-sdk';
import type { RunningServer } from '@app/backend-server';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDriveServer } from './support';

const PASSWORD = 'correct horse battery';
let server: RunningServer;

function newClient(): Client {
  const memory = new Map<string, string>();
  return createClient(server.url, server.anonKey, {
    auth: {
      storage: {
        getItem: (k: string) => memory.get(k) ?? null,
        setItem: (k: string, v: string) => void memory.set(k, v),
        removeItem: (k: string) => void memory.delete(k),
      },
      autoRefreshToken: false,
    },
  } as never);
}

const code = (secret: string) =>
  new TOTP({
    secret: Secret.fromBase32(secret),
    algorithm: 'SHA1',
    digits: 6,
    period: 30,
  }).generate();

/** A user with a folder and a ready file (its object stored), signed in on `client`. */
async function userWithFile(email: string) {
  const client = newClient();
  const signUp = await client.auth.signUp({ email, password: PASSWORD });
  if (signUp.error) throw signUp.error;
  const folder = await client.from('folders').insert({ name: 'Taxes' }).select().single();
  if (folder.error) throw folder.error;
  const begun = await client
    .rpc('begin_upload', { p_folder_id: null, p_name: 'return.txt', p_size: 5 })
    .single();
  if (begun.error) throw begun.error;
  const row = begun.data as { id: string; object_path: string };
  const up = await client.storage.from('files').upload(row.object_path, new Blob(['hello']));
  if (up.error) throw up.error;
  await client.from('files').update({ status: 'ready' }).eq('id', row.id);
  return { client, fileId: row.id, path: row.object_path };
}

/** What a client can see: names of files and folders, and whether the object downloads. */
async function visible(client: Client, path: string) {
  const files = await client.from('files').select('name');
  const folders = await client.from('folders').select('name');
  const object = await client.storage.from('files').download(path);
  return {
    files: (files.data as { name: string }[] | null)?.map((f) => f.name) ?? files.error,
    folders: (folders.data as { name: string }[] | null)?.map((f) => f.name) ?? folders.error,
    object: object.error ? 'refused' : await object.data?.text(),
  };
}

beforeAll(async () => {
  server = await startDriveServer();
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

describe('2-step verification rule', () => {
  it('leaves users who have not turned it on alone', async () => {
    const { client, path } = await userWithFile(`off-${Date.now()}@example.com`);
    expect(await visible(client, path)).toEqual({
      files: ['return.txt'],
      folders: ['Taxes'],
      object: 'hello',
    });
  });

  it('once on, shows files only to sessions that passed the code step', async () => {
    const email = `on-${Date.now()}@example.com`;
    const { client, fileId, path } = await userWithFile(email);
    const enrolled = await client.auth.mfa.enroll({ factorType: 'totp' });
    if (enrolled.error) throw enrolled.error;
    // Enrolled but not verified yet: nothing changes.
    expect((await visible(client, path)).files).toEqual(['return.txt']);
    const verified = await client.auth.mfa.challengeAndVerify({
      factorId: enrolled.data.id,
      code: code(enrolled.data.totp.secret),
    });
    expect(verified.error).toBeNull();
    expect(await visible(client, path)).toEqual({
      files: ['return.txt'],
      folders: ['Taxes'],
      object: 'hello',
    });

    // A new sign-in with the password alone (aal1) sees nothing and changes nothing.
    const laptop = newClient();
    await laptop.auth.signInWithPassword({ email, password: PASSWORD });
    expect(await visible(laptop, path)).toEqual({ files: [], folders: [], object: 'refused' });
    const rename = await laptop.from('files').update({ name: 'x.txt' }).eq('id', fileId).select();
    expect(rename.data).toEqual([]);
    const share = await laptop.from('shares').insert({ file_id: fileId });
    expect(share.error).not.toBeNull();
    const usage = await laptop.rpc('storage_usage').single();
    expect((usage.data as { file_count: number }).file_count).toBe(0);

    // After the code step it sees everything again.
    const step = await laptop.auth.mfa.challengeAndVerify({
      factorId: enrolled.data.id,
      code: code(enrolled.data.totp.secret),
    });
    expect(step.error).toBeNull();
    expect(await visible(laptop, path)).toEqual({
      files: ['return.txt'],
      folders: ['Taxes'],
      object: 'hello',
    });

    // Turned off again: password sessions see the files.
    expect((await laptop.auth.mfa.unenroll({ factorId: enrolled.data.id })).error).toBeNull();
    const phone = newClient();
    await phone.auth.signInWithPassword({ email, password: PASSWORD });
    expect((await visible(phone, path)).files).toEqual(['return.txt']);
  });
});
