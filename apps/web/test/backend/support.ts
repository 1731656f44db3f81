// The `postgres` project's globalSetup declares what it provides (for `inject` in the helper).
/// <reference path="../../../../packages/backend-server/test/support/global-postgres.ts" />
/**
 * Drive's backend tests: a real backend-server with Drive's migrations and functions, on
 * in-memory PGlite (the `pglite` project) or on a fresh database of the run's PostgreSQL
 * cluster (the `postgres` project) — the server package's own test helper decides — and
 * signed-in SDK clients to act through it as users would.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { type Client, createClient } from '@app/backend-sdk';
import type { RunningServer } from '@app/backend-server';
import type { StartServerOptions } from '../../../../packages/backend-server/src/config/index';
import { startTestServer } from '../../../../packages/backend-server/test/support/server';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

/** Drive's backend (migrations and functions) on a free port. */
export function startDriveServer(options: StartServerOptions = {}): Promise<RunningServer> {
  return startTestServer({
    port: 0,
    migrationsDir: here('../../backend/migrations'),
    functionsDir: here('../../backend/functions'),
    log: false,
    ...options,
    auth: { passwordMinLength: 8, rateLimits: false, ...options.auth },
  });
}

/** An SDK client with its session in memory (no browser storage, no refresh timer). */
export function memoryClient(server: RunningServer): Client {
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

let n = 0;

/** A new signed-up (and signed-in) user. */
export async function newUser(server: RunningServer): Promise<Client & { uid: string }> {
  const client = memoryClient(server);
  n += 1;
  const { data, error } = await client.auth.signUp({
    email: `drive-${Date.now()}-${n}@example.com`,
    password: 'correct horse battery',
  });
  if (error) throw error;
  return Object.assign(client, { uid: (data as { user: { id: string } }).user.id });
}

export type Row = Record<string, unknown> & { id: string; name: string };

export async function folder(c: Client, name: string, parent: string | null = null): Promise<Row> {
  const { data, error } = await c
    .from('folders')
    .insert({ name, parent_id: parent })
    .select()
    .single();
  if (error) throw error;
  return data as Row;
}

/** Starts an upload the way Drive does (begin_upload): the row, still 'uploading'. */
export async function beginUpload(
  c: Client,
  name: string,
  folderId: string | null,
  size: number,
): Promise<Row & { object_path: string }> {
  const begun = await c
    .rpc('begin_upload', { p_folder_id: folderId, p_name: name, p_size: size })
    .single();
  if (begun.error) throw begun.error;
  return begun.data as Row & { object_path: string };
}

/** Uploads a file the way Drive does: begin_upload, the object, then ready. */
export async function file(
  c: Client,
  name: string,
  folderId: string | null,
  body = 'hello',
): Promise<Row> {
  const row = await beginUpload(c, name, folderId, body.length);
  const up = await c.storage
    .from('files')
    .upload(row.object_path, new Blob([body], { type: 'text/plain' }));
  if (up.error) throw up.error;
  const ready = await c
    .from('files')
    .update({ status: 'ready' })
    .eq('id', row.id)
    .select()
    .single();
  if (ready.error) throw ready.error;
  return ready.data as Row;
}

export async function rpc<T>(
  c: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<T> {
  const { data, error } = await c.rpc(name, args);
  if (error) throw error;
  return data as T;
}

export const get = async (c: Client, table: 'files' | 'folders', id: string) =>
  (await c.from(table).select('*').eq('id', id).maybeSingle()).data as Row | null;

export const usage = async (c: Client) =>
  Number(
    ((await c.rpc('storage_usage').single()).data as { used_bytes: number | string }).used_bytes,
  );

/** Calls Drive's `trash` function as `c`. */
export async function trashFunction(c: Client, body: unknown) {
  const { data, error } = await c.functions.invoke('trash', { body: body as never });
  return { data: data as { deleted: number; objects: number } | null, error };
}

/** A new signed-up (and signed-in) user with a chosen (or generated) address. */
export async function newPerson(
  server: RunningServer,
  email?: string,
): Promise<Client & { uid: string; email: string }> {
  n += 1;
  const address = email ?? `person-${Date.now()}-${n}@example.com`;
  const client = memoryClient(server);
  const { data, error } = await client.auth.signUp({
    email: address,
    password: 'correct horse battery',
  });
  if (error) throw error;
  return Object.assign(client, {
    uid: (data as { user: { id: string } }).user.id,
    email: address,
  });
}

/**
 * A signed-in client that can join realtime channels: Node 20 has no global WebSocket, so the
 * server package's `ws` is its transport.
 */
export async function liveClient(server: RunningServer, email: string): Promise<Client> {
  const require = createRequire(here('../../../../packages/backend-server/package.json'));
  const memory = new Map<string, string>();
  const client = createClient(server.url, server.anonKey, {
    auth: {
      storage: {
        getItem: (k: string) => memory.get(k) ?? null,
        setItem: (k: string, v: string) => void memory.set(k, v),
        removeItem: (k: string) => void memory.delete(k),
      },
      autoRefreshToken: false,
    },
    realtime: { transport: require('ws') },
  } as never);
  const { error } = await client.auth.signInWithPassword({
    email,
    password: 'correct horse battery',
  });
  if (error) throw error;
  return client;
}
