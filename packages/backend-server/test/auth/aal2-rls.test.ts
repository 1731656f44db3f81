import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { RunningServer } from '../../src/server';
import { Inbox, subscribed } from '../realtime/support';
import { databaseKind, startTestServer } from '../support/server';
import { signedInUser, totpCode } from './mfa-support';
import { claimsOf } from './support';

let server: RunningServer;

// Rows, objects and change events of `vault` need a session at aal2 (an app's policies as the
// hosted docs write them: `auth.jwt() ->> 'aal'`); `diary` needs only a signed-in owner.
const MIGRATION = /* sql */ `
create table public.vault (
  id bigint generated always as identity primary key,
  owner_id uuid not null default auth.uid() references auth.users (id) on delete cascade,
  secret text not null
);
alter table public.vault enable row level security;
create policy "own rows at aal2" on public.vault for all to authenticated
  using (owner_id = auth.uid() and (auth.jwt() ->> 'aal') = 'aal2')
  with check (owner_id = auth.uid() and (auth.jwt() ->> 'aal') = 'aal2');
alter publication supabase_realtime add table public.vault;

create table public.diary (
  id bigint generated always as identity primary key,
  owner_id uuid not null default auth.uid() references auth.users (id) on delete cascade,
  body text not null
);
alter table public.diary enable row level security;
create policy "own rows" on public.diary for all to authenticated
  using (owner_id = auth.uid()) with check (owner_id = auth.uid());
alter publication supabase_realtime add table public.diary;

insert into storage.buckets (id, name) values ('vault', 'vault');
create policy "vault objects at aal2" on storage.objects for all to authenticated
  using (bucket_id = 'vault' and (storage.foldername(name))[1] = auth.uid()::text
         and (auth.jwt() ->> 'aal') = 'aal2')
  with check (bucket_id = 'vault' and (storage.foldername(name))[1] = auth.uid()::text
              and (auth.jwt() ->> 'aal') = 'aal2');
`;

beforeAll(async () => {
  const migrationsDir = await mkdtemp(join(tmpdir(), 'aal2-migrations-'));
  await writeFile(join(migrationsDir, '0001_vault.sql'), MIGRATION);
  server = await startTestServer({ migrationsDir, auth: { rateLimits: false } });
});
afterAll(() => server?.stop());

/** A client that sends a fixed access token (REST, storage, realtime), as an app's server does. */
function withToken(token: string) {
  const client = createClient(server.url, server.anonKey, {
    auth: { autoRefreshToken: false, persistSession: false },
    global: { headers: { authorization: `Bearer ${token}` } },
    realtime: { transport: WebSocket as never },
  } as never);
  void client.realtime.setAuth(token);
  return client;
}

describe(`RLS policies that require aal2 (${databaseKind()})`, () => {
  it('hide rows, objects and change events from aal1 sessions; show them at aal2', async () => {
    const { supabase, userId } = await signedInUser(server, 'vault');
    const aal1 = (await supabase.auth.getSession()).data.session?.access_token ?? '';
    expect(claimsOf(aal1).aal).toBe('aal1');
    const enrolled = await supabase.auth.mfa.enroll({ factorType: 'totp' });
    const verified = await supabase.auth.mfa.challengeAndVerify({
      factorId: enrolled.data?.id ?? '',
      code: totpCode(enrolled.data?.totp.secret ?? ''),
    });
    const aal2 = verified.data?.access_token ?? '';
    expect(claimsOf(aal2).aal).toBe('aal2');
    const low = withToken(aal1);
    const high = withToken(aal2);

    // REST: an aal1 token can neither write nor read the vault.
    const refused = await low.from('vault').insert({ secret: 'aal1 write' });
    expect(refused.error?.code).toBe('42501');
    expect((await high.from('vault').insert({ secret: 'kept' })).error).toBeNull();
    expect((await low.from('vault').select('secret')).data).toEqual([]);
    expect((await high.from('vault').select('secret, owner_id')).data).toEqual([
      { secret: 'kept', owner_id: userId },
    ]);

    // Storage: the same for objects.
    const path = `${userId}/codes.txt`;
    const upload = await low.storage.from('vault').upload(path, new Blob(['nope']));
    expect(upload.error?.message).toBe('new row violates row-level security policy');
    expect(
      (await high.storage.from('vault').upload(path, new Blob(['recovery']))).error,
    ).toBeNull();
    expect((await low.storage.from('vault').download(path)).error).not.toBeNull();
    const download = await high.storage.from('vault').download(path);
    expect(await download.data?.text()).toBe('recovery');

    // Realtime: change events of the vault reach only the aal2 subscriber. Each subscriber
    // also follows its diary; events come in commit order, so the aal1 subscriber's first
    // event being the diary row shows that the vault row before it was not delivered.
    const lowInbox = new Inbox<{ table: string }>();
    const highInbox = new Inbox<{ table: string }>();
    const channels = [];
    for (const [client, inbox] of [
      [low, lowInbox],
      [high, highInbox],
    ] as const) {
      const channel = client.channel(`vault-${Math.random()}`);
      for (const table of ['vault', 'diary']) {
        channel.on(
          'postgres_changes' as never,
          { event: 'INSERT', schema: 'public', table } as never,
          (change: { table: string }) => inbox.push({ table: change.table }),
        );
      }
      channels.push(await subscribed(channel));
    }
    await server.db.query('insert into public.vault (owner_id, secret) values ($1, $2)', [
      userId,
      'live',
    ]);
    await server.db.query('insert into public.diary (owner_id, body) values ($1, $2)', [
      userId,
      'marker',
    ]);
    expect(await highInbox.next(2)).toEqual([{ table: 'vault' }, { table: 'diary' }]);
    expect(await lowInbox.next(1)).toEqual([{ table: 'diary' }]);
    for (const channel of channels) await channel.unsubscribe();
    await low.realtime.disconnect();
    await high.realtime.disconnect();
  });
});
