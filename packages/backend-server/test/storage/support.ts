import { createHash, randomUUID } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { SignJWT } from 'jose';
import WebSocket from 'ws';
import type { RunningServer } from '../../src/server';

/**
 * Owner-folder policies, as apps write them: a signed-in user reads and writes objects
 * whose first folder is their uid, in every bucket; buckets are readable by signed-in users.
 * Bucket `anon-drop` lets anon insert under `public/`.
 */
export const POLICIES = `
create policy "owner reads" on storage.objects for select to authenticated
  using ((storage.foldername(name))[1] = (select auth.uid()::text));
create policy "owner inserts" on storage.objects for insert to authenticated
  with check ((storage.foldername(name))[1] = (select auth.uid()::text));
create policy "owner updates" on storage.objects for update to authenticated
  using ((storage.foldername(name))[1] = (select auth.uid()::text))
  with check ((storage.foldername(name))[1] = (select auth.uid()::text));
create policy "owner deletes" on storage.objects for delete to authenticated
  using ((storage.foldername(name))[1] = (select auth.uid()::text));
create policy "buckets visible" on storage.buckets for select to authenticated using (true);
create policy "anon drops" on storage.objects for insert to anon
  with check (bucket_id = 'anon-drop' and (storage.foldername(name))[1] = 'public');
insert into storage.buckets (id, name) values ('anon-drop', 'anon-drop');
`;

/** A migrations dir holding the policies. */
export async function policiesDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'storage-migrations-'));
  await writeFile(join(dir, '0001_storage_policies.sql'), POLICIES);
  return dir;
}

/** A signed-in user: id and access token (HS256 with the server's secret). */
export interface TestUser {
  id: string;
  token: string;
}

export async function mintUser(server: RunningServer): Promise<TestUser> {
  const id = randomUUID();
  const token = await new SignJWT({
    sub: id,
    role: 'authenticated',
    aud: 'authenticated',
    email: `${id.slice(0, 8)}@example.com`,
    session_id: randomUUID(),
  })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(server.jwtSecret));
  return { id, token };
}

/** The official client, as anon, as a user (their token), or with the service key. */
export function client(server: RunningServer, as: TestUser | 'anon' | 'service'): SupabaseClient {
  const key = as === 'service' ? server.serviceRoleKey : server.anonKey;
  return createClient(server.url, key, {
    auth: { persistSession: false, autoRefreshToken: false },
    realtime: { transport: WebSocket as never },
    global: typeof as === 'object' ? { headers: { Authorization: `Bearer ${as.token}` } } : {},
  });
}

/** A bucket name no other test uses. */
export const uniqueBucket = (label: string) => `${label}-${randomUUID().slice(0, 8)}`;

export const sha256 = (data: Uint8Array | string) =>
  createHash('sha256').update(data).digest('hex');

/** Headers for raw fetches as `as`. */
export function headers(
  server: RunningServer,
  as: TestUser | 'anon' | 'service',
): Record<string, string> {
  const token =
    as === 'service' ? server.serviceRoleKey : as === 'anon' ? server.anonKey : as.token;
  return {
    apikey: as === 'service' ? server.serviceRoleKey : server.anonKey,
    authorization: `Bearer ${token}`,
  };
}
