import { mkdir, mkdtemp, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { Hono } from 'hono';
import { SignJWT } from 'jose';
import WebSocket from 'ws';
import { TOKEN_HEADER } from '../../src/console/index';
import type { LogEntry } from '../../src/logs/index';
import type { RunningServer } from '../../src/server';
import type { AppEnv, ServiceModule } from '../../src/service-module';

const PACKAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * A project folder in a temp dir: `functions/<name>/…` from `files` (paths relative to
 * `functions/`), an optional `config.toml` beside it, and a `node_modules` link to the
 * package's installed modules (as an app's own install would be).
 */
export async function writeProject(
  files: Record<string, string>,
  configToml?: string,
): Promise<{ root: string; functionsDir: string }> {
  const root = await mkdtemp(join(tmpdir(), 'functions-test-'));
  const functionsDir = join(root, 'functions');
  for (const [path, text] of Object.entries(files)) {
    const full = join(functionsDir, path);
    await mkdir(dirname(full), { recursive: true });
    await writeFile(full, text);
  }
  if (configToml !== undefined) await writeFile(join(root, 'config.toml'), configToml);
  await symlink(join(PACKAGE_DIR, 'node_modules'), join(root, 'node_modules'));
  return { root, functionsDir };
}

/** A user access token signed with the server's secret, as auth would issue it. */
export function userToken(server: RunningServer, sub = crypto.randomUUID()): Promise<string> {
  return new SignJWT({
    sub,
    role: 'authenticated',
    aud: 'authenticated',
    email: `${sub}@example.com`,
    session_id: crypto.randomUUID(),
  })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(server.jwtSecret));
}

/**
 * A second, independent service mounted beside functions (`/probe/v1/db` runs a query on
 * the server's database), to check that the rest of the server keeps answering.
 */
export const probeService: ServiceModule = {
  name: 'probe',
  basePath: '/probe/v1',
  keyAuth: true,
  create(ctx) {
    const routes = new Hono<AppEnv>();
    routes.get('/db', async (c) => {
      const { rows } = await ctx.db.query<{ answer: number }>('select 41 + 1 as answer');
      return c.json(rows[0]);
    });
    return { routes };
  },
};

/** The official client against `server` (Node 20 needs `ws` for its realtime part). */
export function client(
  server: RunningServer,
  headers: Record<string, string> = {},
): SupabaseClient {
  return createClient(server.url, server.anonKey, {
    auth: { persistSession: false, autoRefreshToken: false },
    realtime: { transport: WebSocket as never },
    global: { headers },
  });
}

/**
 * What the runtime and the function `name` reported so far (its console output, and why its
 * worker was stopped), from the server's live log through the console API.
 */
export async function functionLog(server: RunningServer, name: string): Promise<string[]> {
  const token = new URL(server.consoleUrl ?? '').hash.replace('#token=', '');
  const res = await fetch(`${server.url}/_console/api/logs`, {
    headers: { [TOKEN_HEADER]: token },
  });
  const { entries } = (await res.json()) as { entries: LogEntry[] };
  return entries
    .filter((e) => e.kind === 'function' && e.source === name)
    .map((e) => e.message ?? '');
}

/**
 * Starts a timer of `ms` and tells whether it has fired. Started before a request, it orders
 * the request's outcome against a server-side limit of the same length: the server (in this
 * process, on this event loop) starts counting later, so reaches its limit later.
 */
export function startTimer(ms: number): () => boolean {
  let fired = false;
  setTimeout(() => {
    fired = true;
  }, ms);
  return () => fired;
}
