import type { AuthChangeEvent } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server';
import { databaseKind, startTestServer } from '../support/server';
import { api, claimsOf, client, signUp, uniqueEmail } from './support';

let server: RunningServer;

beforeAll(async () => {
  // 60 s tokens are inside auth-js's 90 s refresh margin, so the client refreshes at once.
  server = await startTestServer({ auth: { jwtExpiry: 60, rateLimits: false } });
});
afterAll(() => server?.stop());

describe(`token lifetime and refresh (${databaseKind()})`, () => {
  it('issues tokens with the configured lifetime', async () => {
    const session = await signUp(server);
    const claims = claimsOf(session.access_token);
    expect(Number(claims.exp) - Number(claims.iat)).toBe(60);
    expect((session as unknown as { expires_in: number }).expires_in).toBe(60);
  });

  it('auto-refreshes an expiring session (TOKEN_REFRESHED) and the new token works', async () => {
    const supabase = client(server, { autoRefreshToken: true });
    const refreshed = new Promise<{ access_token: string; refresh_token: string }>((resolve) => {
      supabase.auth.onAuthStateChange((event: AuthChangeEvent, session) => {
        if (event === 'TOKEN_REFRESHED' && session) resolve(session);
      });
    });
    try {
      const { data } = await supabase.auth.signUp({
        email: uniqueEmail('auto'),
        password: 'auto-password',
      });
      // Restarting the ticker runs a tick at once instead of waiting 30 s for the next.
      await supabase.auth.stopAutoRefresh();
      await supabase.auth.startAutoRefresh();
      const { access_token: token, refresh_token } = await refreshed;
      // A rotated refresh token (the access token may be byte-identical within the same second).
      expect(refresh_token).not.toBe(data.session?.refresh_token);
      expect(claimsOf(token).session_id).toBe(
        claimsOf(data.session?.access_token ?? '').session_id,
      );
      const me = await api(server, '/user', { token });
      expect(me.status).toBe(200);
    } finally {
      await supabase.auth.stopAutoRefresh();
    }
  });

  it('refreshes on getSession when the session is about to expire', async () => {
    const supabase = client(server);
    const events: AuthChangeEvent[] = [];
    supabase.auth.onAuthStateChange((event) => {
      events.push(event);
    });
    const { data } = await supabase.auth.signUp({
      email: uniqueEmail('lazy'),
      password: 'lazy-password',
    });
    const { data: got } = await supabase.auth.getSession();
    expect(got.session?.refresh_token).not.toBe(data.session?.refresh_token);
    expect(events).toContain('TOKEN_REFRESHED');
  });

  it('allows replaying an old refresh token inside the reuse interval (default 10 s)', async () => {
    const first = await signUp(server);
    const refresh = async (token: string) =>
      api(server, '/token?grant_type=refresh_token', {
        method: 'POST',
        json: { refresh_token: token },
      });
    const r1 = (await (await refresh(first.refresh_token)).json()) as { refresh_token: string };
    await refresh(r1.refresh_token);
    const replay = await refresh(first.refresh_token);
    expect(replay.status).toBe(200);
    const body = (await replay.json()) as { refresh_token: string; access_token: string };
    expect(body.refresh_token).not.toBe(first.refresh_token);
    expect(claimsOf(body.access_token).session_id).toBe(claimsOf(first.access_token).session_id);
  });

  it('has no rate limits when they are turned off', async () => {
    const statuses = new Set<number>();
    for (let i = 0; i < 35; i++) {
      const res = await api(server, '/recover', {
        method: 'POST',
        json: { email: uniqueEmail('nolimit') },
      });
      statuses.add(res.status);
    }
    expect([...statuses]).toEqual([200]);
  });
});
