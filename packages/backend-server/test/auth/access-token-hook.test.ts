import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/index';
import type { RunningServer } from '../../src/server';
import { startTestServer } from '../support/server';
import { api, claimsOf, client, uniqueEmail } from './support';

// The hook as the hosted docs write one: it reads a role table and adds a claim, and it is
// executable by supabase_auth_admin only. Test cases pick a branch by user metadata.
const MIGRATION = /* sql */ `
create table public.user_roles (user_id uuid primary key, role text not null);
create table public.hook_calls (
  id bigint generated always as identity primary key,
  input jsonb not null,
  ran_as text not null
);
create table public.documents (id int primary key, body text not null);
insert into public.documents values (1, 'for editors');
alter table public.documents enable row level security;
create policy "editors read" on public.documents for select to authenticated
  using ((auth.jwt() ->> 'user_role') = 'editor');

create function public.not_for_hooks() returns int language sql as $$ select 1 $$;
revoke execute on function public.not_for_hooks() from public, anon, authenticated, service_role;

create function public.custom_access_token_hook(event jsonb) returns jsonb
  language plpgsql
  as $$
  declare
    claims jsonb := event -> 'claims';
    kase text := event -> 'claims' -> 'user_metadata' ->> 'hook_case';
  begin
    insert into public.hook_calls (input, ran_as) values (event, current_user);
    if kase = 'deny' then
      return jsonb_build_object('error',
        jsonb_build_object('http_code', 403, 'message', 'Sign-ins are closed for you'));
    elsif kase = 'deny_without_code' then
      return '{"error": {"message": "Something is off"}}'::jsonb;
    elsif kase = 'no_claims' then
      return '{"other": 1}'::jsonb;
    elsif kase = 'bad_claims' then
      return jsonb_build_object('claims', (claims - 'aud') || '{"exp": "soon"}'::jsonb);
    elsif kase = 'no_grant' then
      perform public.not_for_hooks();
    elsif kase = 'raise' then
      raise exception 'the hook broke';
    end if;
    claims := jsonb_set(claims, '{user_role}', coalesce(
      (select to_jsonb(role) from public.user_roles where user_id = (event ->> 'user_id')::uuid),
      'null'::jsonb));
    return jsonb_build_object('claims', claims);
  end
  $$;

grant usage on schema public to supabase_auth_admin;
grant execute on function public.custom_access_token_hook to supabase_auth_admin;
revoke execute on function public.custom_access_token_hook from authenticated, anon, public;
grant select on table public.user_roles to supabase_auth_admin;
grant insert on table public.hook_calls to supabase_auth_admin;
`;

const HOOK = 'pg-functions://postgres/public/custom_access_token_hook';

let server: RunningServer;

beforeAll(async () => {
  const dir = await mkdtemp(join(tmpdir(), 'hook-'));
  await writeFile(join(dir, '0001_hook.sql'), MIGRATION);
  server = await startTestServer({
    migrationsDir: dir,
    auth: { hooks: { customAccessToken: HOOK } },
  });
});
afterAll(() => server?.stop());

/** Signs up through raw fetch (auth-js shows no message for a 500): status and body. */
async function rawSignUp(hookCase: string, legacy = false) {
  const res = await api(server, '/signup', {
    method: 'POST',
    legacy,
    json: { email: uniqueEmail(hookCase), password: 'password-1', data: { hook_case: hookCase } },
  });
  return {
    status: res.status,
    errorCode: res.headers.get('x-sb-error-code'),
    body: await res.json(),
  };
}

/** Signs up a user whose metadata picks a hook branch. */
function signUpWith(hookCase: string | null) {
  const c = client(server);
  const promise = c.auth.signUp({
    email: uniqueEmail(hookCase ?? 'hook'),
    password: 'password-1',
    options: { data: hookCase ? { hook_case: hookCase } : {} },
  });
  return { c, promise };
}

describe('custom access token hook (pg-functions)', () => {
  it('receives user_id, the claims and the method, runs as supabase_auth_admin, on issue and refresh', async () => {
    const { c, promise } = signUpWith(null);
    const { data, error } = await promise;
    expect(error).toBeNull();
    const userId = data.user?.id as string;
    const first = claimsOf(data.session?.access_token ?? '');
    expect(first.user_role).toBeNull();

    await server.db.query(`insert into public.user_roles values ($1, 'editor')`, [userId]);
    const refreshed = await c.auth.refreshSession();
    expect(refreshed.error).toBeNull();
    expect(claimsOf(refreshed.data.session?.access_token ?? '').user_role).toBe('editor');

    const { rows } = await server.db.query<{ input: Record<string, unknown>; ran_as: string }>(
      `select input, ran_as from public.hook_calls where input ->> 'user_id' = $1 order by id`,
      [userId],
    );
    expect(rows.map((r) => [r.input.authentication_method, r.ran_as])).toEqual([
      ['password', 'supabase_auth_admin'],
      ['token_refresh', 'supabase_auth_admin'],
    ]);
    const input = rows[0]?.input as Record<string, Record<string, unknown>>;
    expect(input.metadata).toMatchObject({ name: 'customize-access-token' });
    // The claims the hook received are the ones the token would have carried without it.
    const { user_role: _role, ...signed } = first;
    expect(input.claims).toEqual(signed);
  });

  it('lets RLS read the added claim through REST', async () => {
    const { c, promise } = signUpWith(null);
    const { data } = await promise;
    const before = await c.from('documents').select('body');
    expect(before.data).toEqual([]);
    await server.db.query(`insert into public.user_roles values ($1, 'editor')`, [data.user?.id]);
    await c.auth.refreshSession();
    const after = await c.from('documents').select('body');
    expect(after.data).toEqual([{ body: 'for editors' }]);
  });

  it('applies on password sign-in too', async () => {
    const email = uniqueEmail('again');
    const c = client(server);
    const up = await c.auth.signUp({ email, password: 'password-1' });
    await server.db.query(`insert into public.user_roles values ($1, 'viewer')`, [
      up.data.user?.id,
    ]);
    const { data } = await c.auth.signInWithPassword({ email, password: 'password-1' });
    expect(claimsOf(data.session?.access_token ?? '').user_role).toBe('viewer');
  });

  it("turns the hook's error into the response (status and message, no code of its own)", async () => {
    const denied = await signUpWith('deny').promise;
    expect(denied.data.session).toBeNull();
    expect(denied.error?.toJSON()).toMatchObject({
      status: 403,
      code: 'unknown',
      message: 'Sign-ins are closed for you',
    });
    expect(await rawSignUp('deny_without_code')).toEqual({
      status: 500,
      errorCode: null,
      body: { code: 'unexpected_failure', message: 'Something is off' },
    });
    // Nothing of the refused sign-up is kept.
    const { rows } = await server.db.query<{ n: number }>(
      `select count(*)::int as n from auth.users where raw_user_meta_data ->> 'hook_case' = 'deny'`,
    );
    expect(rows[0]?.n).toBe(0);
  });

  it('refuses output without claims or with claims outside the schema, as GoTrue', async () => {
    expect(await rawSignUp('no_claims')).toEqual({
      status: 500,
      errorCode: null,
      body: { code: 'unexpected_failure', message: 'output claims field is missing' },
    });
    expect((await rawSignUp('bad_claims')).body).toEqual({
      code: 'unexpected_failure',
      message:
        'output claims do not conform to the expected schema: \n' +
        '- (root): aud is required\n' +
        '- exp: Invalid type. Expected: integer, given: string\n',
    });
  });

  it('reports a failing function (an exception, a missing grant) as an error running the hook', async () => {
    for (const kase of ['raise', 'no_grant']) {
      expect({ kase, ...(await rawSignUp(kase)) }).toEqual({
        kase,
        status: 500,
        errorCode: null,
        body: { code: 'unexpected_failure', message: `Error running hook URI: ${HOOK}` },
      });
    }
    // The legacy error shape shows an exception the function raised (as GoTrue does).
    const legacy = await rawSignUp('raise', true);
    expect(legacy.status).toBe(500);
    expect(legacy.body).toMatchObject({ code: 'P0001', message: 'the hook broke' });
    // supabase-js reports any 500 as a retryable failure.
    const { error } = await signUpWith('no_grant').promise;
    expect(error?.status).toBe(500);
    expect(error?.name).toBe('AuthRetryableFetchError');
  });
});

describe('hook configuration', () => {
  it('accepts pg-functions URIs, and http(s) endpoints with secrets', async () => {
    await expect(
      resolveConfig({ auth: { hooks: { customAccessToken: 'https://example.com/hook' } } }),
    ).rejects.toThrow(/an HTTP hook needs at least one secret/);
    await expect(
      resolveConfig({ auth: { hooks: { customAccessToken: 'ftp://example.com/hook' } } }),
    ).rejects.toThrow(/pg-functions:\/\/postgres\/<schema>\/<function> or an http\(s\) URL/);
    await expect(
      resolveConfig({ auth: { hooks: { customAccessToken: 'pg-functions://postgres/public' } } }),
    ).rejects.toThrow(/expected pg-functions:\/\/postgres\/<schema>\/<function>/);
    await expect(
      resolveConfig({
        auth: { hooks: { customAccessToken: 'pg-functions://postgres/public/x;drop' } },
      }),
    ).rejects.toThrow(/expected pg-functions/);
  });
});
