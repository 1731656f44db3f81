/**
 * Which overload an rpc call reaches, and what PostgREST 13 answers when none or several
 * match: callable functions only (named parameters, or one unnamed json/jsonb/text/xml/bytea
 * parameter), argument keys against required and optional parameters, the whole body for a
 * single unnamed parameter, and the PGRST202/PGRST203 texts and hints.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server';
import { databaseKind, startTestServer } from '../support/server';

const SCHEMA = `
create table public.people (id int primary key, name text not null, age int);
insert into public.people values (1, 'Ann', 30), (2, 'Bob', 40), (3, 'Cy', 50);
create table public.notes (id int primary key, person_id int references public.people(id), body text);
insert into public.notes values (1, 1, 'hello'), (2, 1, 'again'), (3, 2, 'hi');

create function public.poly(bool) returns int language sql as 'select 1';
create function public.poly(int) returns int language sql as 'select 2';
create function public.poly(text) returns text language sql as $$ select 'text:' || $1 $$;

create function public.opt() returns int language sql as 'select 1';
create function public.opt(text default 'x') returns text language sql as $$ select 'unnamed:' || $1 $$;

create function public.only_int(int) returns int language sql as 'select 1';
create function public.only_text(text) returns text language sql as $$ select $1 $$;
create function public.whole(jsonb) returns jsonb language sql as $$ select $1 $$;
create function public.byte_sum(bytea) returns int language sql
  as $$ select sum(get_byte($1, i))::int from generate_series(0, length($1) - 1) as i $$;

create function public.greet(name text, greeting text default 'Hi') returns text
  language sql stable as $$ select greeting || ' ' || name $$;
create function public.greet(name text, times int) returns text
  language sql stable as $$ select repeat(name, times) $$;

create function public.person(pid int) returns public.people language sql stable
  as $$ select * from public.people where id = pid $$;
create function public.older_than(min int) returns setof public.people language sql stable
  as $$ select * from public.people where age > min order by id $$;
create function public.twice(n int) returns int language sql immutable as $$ select n * 2 $$;
create function public.read_only_stable() returns text language sql stable
  as $$ select current_setting('transaction_read_only') $$;
create function public.read_only_volatile() returns text language sql volatile
  as $$ select current_setting('transaction_read_only') $$;
create function public.note_text(public.notes) returns text language sql stable
  as $$ select $1.body $$;
`;

describe(`rpc overload resolution (${databaseKind()})`, () => {
  let server: RunningServer;
  const call = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(`${server.url}/rest/v1${path}`, {
      ...init,
      headers: {
        apikey: server.anonKey,
        'content-type': 'application/json',
        ...(init.headers as Record<string, string>),
      },
    });
    const text = await res.text();
    return {
      status: res.status,
      headers: res.headers,
      body: text ? (JSON.parse(text) as unknown) : null,
    };
  };
  const post = (fn: string, body: unknown, headers: Record<string, string> = {}) =>
    call(`/rpc/${fn}`, { method: 'POST', body: JSON.stringify(body), headers });

  beforeAll(async () => {
    const migrationsDir = await mkdtemp(join(tmpdir(), 'rpc-resolution-'));
    await writeFile(join(migrationsDir, '0001_schema.sql'), SCHEMA);
    server = await startTestServer({ migrationsDir });
  });
  afterAll(() => server?.stop());

  it('passes the body to the one callable unnamed overload (bool and int ones are not callable)', async () => {
    // {"": …} names the unnamed parameter; only poly(text) is callable, and gets the body.
    expect(await post('poly', { '': true })).toMatchObject({
      status: 200,
      body: 'text:{"":true}',
    });
    expect(await post('only_text', { '': 'x' })).toMatchObject({
      status: 200,
      body: '{"":"x"}',
    });
    expect(await post('whole', { a: [1, 2] })).toMatchObject({ status: 200, body: { a: [1, 2] } });
  });

  it('passes raw text and binary bodies to a single unnamed text or bytea parameter', async () => {
    const raw = async (fn: string, type: string, body: string | Uint8Array) => {
      const res = await fetch(`${server.url}/rest/v1/rpc/${fn}`, {
        method: 'POST',
        headers: { apikey: server.anonKey, 'content-type': type },
        body,
      });
      return { status: res.status, body: (await res.json()) as unknown };
    };
    expect(await raw('only_text', 'text/plain', 'plain words')).toEqual({
      status: 200,
      body: 'plain words',
    });
    const bytes = new Uint8Array([0, 1, 2, 250, 255]);
    expect(await raw('byte_sum', 'application/octet-stream', bytes)).toEqual({
      status: 200,
      body: 508,
    });
    expect(await raw('only_int', 'text/plain', '1')).toEqual({
      status: 404,
      body: {
        code: 'PGRST202',
        message: 'Could not find the function public.only_int in the schema cache',
        details:
          'Searched for the function public.only_int with a single unnamed text parameter, but no matches were found in the schema cache.',
        hint: null,
      },
    });
  });

  it('reports ambiguous overloads with their signatures, fewest parameters first', async () => {
    expect(await post('opt', {})).toEqual({
      status: 300,
      headers: expect.anything(),
      body: {
        code: 'PGRST203',
        message:
          'Could not choose the best candidate function between: public.opt(), public.opt( => text)',
        details: null,
        hint: 'Try renaming the parameters or the function itself in the database so function overloading can be resolved',
      },
    });
    expect(await post('opt', { '': 'y' })).toMatchObject({
      status: 200,
      body: 'unnamed:{"":"y"}',
    });
    // Required and optional parameters: {name} fits greet(name, greeting default) only.
    expect(await post('greet', { name: 'Ann' })).toMatchObject({ status: 200, body: 'Hi Ann' });
    expect(await post('greet', { name: 'Ann', times: 2 })).toMatchObject({ body: 'AnnAnn' });
  });

  it('answers PGRST202 with the texts and a close function or parameter list as the hint', async () => {
    const notCallable = await post('only_int', { '': 1 });
    expect(notCallable).toMatchObject({
      status: 404,
      body: {
        code: 'PGRST202',
        message: 'Could not find the function public.only_int() in the schema cache',
        details:
          'Searched for the function public.only_int with parameter  or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.',
        // Function names are hinted only when at least 75% alike (PostgREST's fix of
        // hints leaking names; 13.0 used 33%, which named only_text here).
        hint: null,
      },
    });
    expect((await post('greets', { name: 'x' })).body).toMatchObject({
      message: 'Could not find the function public.greets(name) in the schema cache',
      hint: 'Perhaps you meant to call the function public.greet',
    });
    expect((await post('grete', { name: 'x' })).body).toMatchObject({ hint: null });
    // A known name with unknown parameters: the closest parameter list.
    expect((await post('greet', { nam: 'x', greeting: 'y' })).body).toMatchObject({
      message: 'Could not find the function public.greet(greeting, nam) in the schema cache',
      details:
        'Searched for the function public.greet with parameters greeting, nam or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.',
      hint: 'Perhaps you meant to call the function public.greet(greeting, name)',
    });
    expect((await call('/rpc/twice')).body).toMatchObject({
      message: 'Could not find the function public.twice without parameters in the schema cache',
      details:
        'Searched for the function public.twice without parameters, but no matches were found in the schema cache.',
    });
    // A function of a row is a computed field, not an rpc.
    expect((await post('note_text', {})).status).toBe(404);
    // The OpenAPI document lists callable functions only.
    const paths = Object.keys(((await call('/')).body as { paths: object }).paths);
    expect(paths).toContain('/rpc/only_text');
    expect(paths).not.toContain('/rpc/only_int');
    expect(paths).not.toContain('/rpc/note_text');
  });

  it('reads GET arguments as the parameters without an operator; the rest filter', async () => {
    expect(await call('/rpc/twice?n=21')).toMatchObject({ status: 200, body: 42 });
    const { body } = await call('/rpc/older_than?min=35&name=eq.Cy&select=name');
    expect(body).toEqual([{ name: 'Cy' }]);
  });

  it('answers null for a single composite filtered away, and counts scalar results', async () => {
    expect(await post('person', { pid: 1 })).toMatchObject({
      status: 200,
      body: { id: 1, name: 'Ann', age: 30 },
    });
    const none = await call('/rpc/person?pid=1&name=eq.Nobody');
    expect(none).toMatchObject({ status: 200, body: null });
    const counted = await call('/rpc/twice?n=2', { headers: { prefer: 'count=exact' } });
    expect(counted.headers.get('content-range')).toBe('0-0/1');
  });

  it('runs POST to a stable function read-only, as the hosted service does', async () => {
    expect(await post('read_only_stable', {})).toMatchObject({ status: 200, body: 'on' });
    expect(await post('read_only_volatile', {})).toMatchObject({ status: 200, body: 'off' });
  });

  it('holds rows returning functions to max-affected', async () => {
    const strict = { prefer: 'handling=strict, max-affected=1' };
    expect(await post('older_than', { min: 35 }, strict)).toMatchObject({
      status: 400,
      body: {
        code: 'PGRST124',
        message: 'Query result exceeds max-affected preference constraint',
        details: 'The query affects 2 rows',
      },
    });
    expect(await post('older_than', { min: 45 }, strict)).toMatchObject({ status: 200 });
    expect(await post('person', { pid: 1 }, strict)).toMatchObject({
      status: 400,
      body: { code: 'PGRST128' },
    });
  });
});
