import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { StartServerOptions } from '../../src/config/index';
import type { RunningServer } from '../../src/server';
import { databaseKind, startTestServer } from '../support/server';

const LIMITS: StartServerOptions['auth'] = { rateLimits: { tokenPerIp: 2 } };

let behindProxy: RunningServer;
let direct: RunningServer;

beforeAll(async () => {
  // The tests' own connections come from loopback: here that is the "load balancer".
  behindProxy = await startTestServer({ auth: LIMITS, trustedProxies: ['127.0.0.1', '::1'] });
  direct = await startTestServer({ auth: LIMITS });
});
afterAll(async () => {
  await behindProxy?.stop();
  await direct?.stop();
});

/** supabase-js sending `X-Forwarded-For: forwardedFor` on every request. */
function clientFrom(server: RunningServer, forwardedFor: string): SupabaseClient {
  return createClient(server.url, server.anonKey, {
    realtime: { transport: WebSocket as never },
    global: { headers: { 'X-Forwarded-For': forwardedFor } },
    auth: { autoRefreshToken: false, persistSession: false },
  });
}

async function signIn(supabase: SupabaseClient): Promise<string | undefined> {
  const { error } = await supabase.auth.signInWithPassword({
    email: 'nobody-here@example.com',
    password: 'not-the-password',
  });
  return error?.code;
}

async function keys(server: RunningServer): Promise<string[]> {
  const { rows } = await server.db.query<{ key: string }>(
    'select key from _auth.rate_limits order by key',
  );
  return rows.map((r) => r.key);
}

describe(`client address behind a trusted proxy (${databaseKind()})`, () => {
  it('counts per forwarded client address when the peer is a trusted proxy', async () => {
    const first = clientFrom(behindProxy, '203.0.113.7');
    expect(await signIn(first)).toBe('invalid_credentials');
    expect(await signIn(first)).toBe('invalid_credentials');
    expect(await signIn(first)).toBe('over_request_rate_limit');
    // Another client behind the same proxy has a limit of its own.
    expect(await signIn(clientFrom(behindProxy, '203.0.113.8'))).toBe('invalid_credentials');
    // A client that forges a hop before its own is still counted as itself.
    expect(await signIn(clientFrom(behindProxy, '198.51.100.1, 203.0.113.7'))).toBe(
      'over_request_rate_limit',
    );
    expect(await keys(behindProxy)).toEqual(['tokenPerIp:203.0.113.7', 'tokenPerIp:203.0.113.8']);
  });

  it('ignores X-Forwarded-For from a peer that is not a trusted proxy', async () => {
    expect(await signIn(clientFrom(direct, '203.0.113.1'))).toBe('invalid_credentials');
    expect(await signIn(clientFrom(direct, '203.0.113.2'))).toBe('invalid_credentials');
    expect(await signIn(clientFrom(direct, '203.0.113.3'))).toBe('over_request_rate_limit');
    const counted = await keys(direct);
    expect(counted).toHaveLength(1);
    expect(counted[0]).not.toContain('203.0.113');
  });
});
