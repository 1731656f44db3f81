/**
 * Resource embedding as PostgREST 13 resolves it: one-to-one, self references, columns and
 * constraints as targets, computed relationships and computed fields, and the errors
 * (PGRST200/201 texts, the 42703/42712 errors named after PostgREST's aliases).
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server';
import { databaseKind, startTestServer } from '../support/server';

const SCHEMA = `
create table public.authors (name text primary key, born int);
create table public.profiles (id int primary key, author text unique references public.authors);
create table public.duos (
  id int primary key,
  lead text not null references public.authors,
  second text not null references public.authors
);
create table public.posts (id int primary key, author text not null references public.authors, body text);
create table public.folders (id int primary key, name text, parent_id int references public.folders(id));
create view public.old_authors as select * from public.authors where born < 1900;

create function public.posts_of(public.authors) returns setof public.posts language sql stable
  as $$ select * from public.posts where author = $1.name order by id $$;
create function public.first_post(public.authors) returns setof public.posts language sql stable rows 1
  as $$ select * from public.posts where author = $1.name order by id limit 1 $$;
create function public.profile_of(public.authors) returns public.profiles language sql stable
  as $$ select * from public.profiles where author = $1.name $$;
create function public.shout(public.posts) returns text language sql stable
  as $$ select upper($1.body) $$;
create function public.posts_by(who text) returns setof public.posts language sql stable
  as $$ select * from public.posts where author = who order by id $$;
-- A computed relationship named like a table replaces the foreign keys to that table.
create function public.duos(public.authors) returns setof public.duos language sql stable
  as $$ select * from public.duos where lead = $1.name $$;

insert into public.authors values ('Ada', 1815), ('Grace', 1906), ('Linus', 1969);
insert into public.profiles values (1, 'Ada');
insert into public.duos values (1, 'Ada', 'Grace'), (2, 'Grace', 'Ada');
insert into public.posts values (1, 'Ada', 'notes'), (2, 'Ada', 'engine'), (3, 'Grace', 'cobol');
insert into public.folders values (1, 'root', null), (2, 'a', 1), (3, 'b', 1), (4, 'c', 2);
`;

describe(`embedding (${databaseKind()})`, () => {
  let server: RunningServer;
  const get = async (path: string) => {
    const res = await fetch(`${server.url}/rest/v1${path}`, {
      headers: { apikey: server.anonKey },
    });
    return { status: res.status, body: (await res.json()) as unknown };
  };

  beforeAll(async () => {
    const migrationsDir = await mkdtemp(join(tmpdir(), 'embedding-'));
    await writeFile(join(migrationsDir, '0001_schema.sql'), SCHEMA);
    server = await startTestServer({ migrationsDir });
  });
  afterAll(() => server?.stop());

  it('embeds one-to-one in both directions, and a column as the target', async () => {
    expect(await get('/profiles?select=id,authors(name)')).toEqual({
      status: 200,
      body: [{ id: 1, authors: { name: 'Ada' } }],
    });
    expect((await get('/authors?select=name,profiles(id)&name=eq.Ada')).body).toEqual([
      { name: 'Ada', profiles: { id: 1 } },
    ]);
    // The foreign key column names the parent (not the view over the same table).
    expect((await get('/profiles?select=author(name,born)')).body).toEqual([
      { author: { name: 'Ada', born: 1815 } },
    ]);
  });

  it('tells ambiguous embeds apart, with the details and hint PostgREST gives', async () => {
    const res = await get('/duos?select=authors(name)');
    expect(res).toEqual({
      status: 300,
      body: {
        code: 'PGRST201',
        message:
          "Could not embed because more than one relationship was found for 'duos' and 'authors'",
        details: [
          {
            cardinality: 'many-to-one',
            embedding: 'duos with authors',
            relationship: 'duos_lead_fkey using duos(lead) and authors(name)',
          },
          {
            cardinality: 'many-to-one',
            embedding: 'duos with authors',
            relationship: 'duos_second_fkey using duos(second) and authors(name)',
          },
        ],
        hint: "Try changing 'authors' to one of the following: 'authors!duos_lead_fkey', 'authors!duos_second_fkey'. Find the desired relationship in the 'details' key.",
      },
    });
    const hinted = await get('/duos?select=id,lead:authors!lead(name)&order=id');
    expect(hinted.body).toEqual([
      { id: 1, lead: { name: 'Ada' } },
      { id: 2, lead: { name: 'Grace' } },
    ]);
    // Two embeds of one name without aliases share PostgREST's lateral alias.
    expect(await get('/duos?select=authors!lead(name),authors!second(name)')).toEqual({
      status: 400,
      body: {
        code: '42712',
        message: 'table name "duos_authors_1" specified more than once',
        details: null,
        hint: null,
      },
    });
  });

  it('follows self references: the table name means children, the column the parent', async () => {
    expect((await get('/folders?select=name,folders(name)&id=eq.1')).body).toEqual([
      { name: 'root', folders: [{ name: 'a' }, { name: 'b' }] },
    ]);
    expect((await get('/folders?select=name,parent_id(name)&id=eq.4')).body).toEqual([
      { name: 'c', parent_id: { name: 'a' } },
    ]);
    expect((await get('/folders?select=name,folders!parent_id(name)&id=eq.2')).body).toEqual([
      { name: 'a', folders: [{ name: 'c' }] },
    ]);
    expect(await get('/folders?select=name,folders!folders_parent_id_fkey(name)')).toEqual({
      status: 400,
      body: {
        code: 'PGRST200',
        message:
          "Could not find a relationship between 'folders' and 'folders' in the schema cache",
        details:
          "Searched for a foreign key relationship between 'folders' and 'folders' using the hint 'folders_parent_id_fkey' in the schema 'public', but no matches were found.",
        hint: null,
      },
    });
  });

  it('embeds computed relationships: set returning, one row, and overriding a table name', async () => {
    expect((await get('/authors?select=name,posts_of(id)&order=name')).body).toEqual([
      { name: 'Ada', posts_of: [{ id: 1 }, { id: 2 }] },
      { name: 'Grace', posts_of: [{ id: 3 }] },
      { name: 'Linus', posts_of: [] },
    ]);
    expect((await get('/authors?select=name,first_post(body)&order=name')).body).toEqual([
      { name: 'Ada', first_post: { body: 'notes' } },
      { name: 'Grace', first_post: { body: 'cobol' } },
      { name: 'Linus', first_post: null },
    ]);
    // A function returning one composite yields a row of nulls when nothing matches.
    expect((await get('/authors?select=name,profile_of(id)&name=neq.Ada&order=name')).body).toEqual(
      [
        { name: 'Grace', profile_of: { id: null } },
        { name: 'Linus', profile_of: { id: null } },
      ],
    );
    // duos(authors) is the function, not the two foreign keys (which would be ambiguous).
    expect((await get('/authors?select=name,duos(id)&name=eq.Grace')).body).toEqual([
      { name: 'Grace', duos: [{ id: 2 }] },
    ]);
  });

  it('selects, filters and orders computed fields, also on rpc results and embeds', async () => {
    expect((await get('/posts?select=id,shout&shout=like.*O*&order=shout.desc')).body).toEqual([
      { id: 1, shout: 'NOTES' },
      { id: 3, shout: 'COBOL' },
    ]);
    expect((await get('/authors?select=name,posts(shout)&name=eq.Grace')).body).toEqual([
      { name: 'Grace', posts: [{ shout: 'COBOL' }] },
    ]);
    expect((await get('/rpc/posts_by?who=Ada&select=id,shout,authors(born)')).body).toEqual([
      { id: 1, shout: 'NOTES', authors: { born: 1815 } },
      { id: 2, shout: 'ENGINE', authors: { born: 1815 } },
    ]);
    // `*` leaves computed fields out.
    expect((await get('/posts?id=eq.3')).body).toEqual([{ id: 3, author: 'Grace', body: 'cobol' }]);
  });

  it('names unknown columns after the aliases PostgREST gives', async () => {
    expect(await get('/authors?select=nope')).toEqual({
      status: 400,
      body: {
        code: '42703',
        message: 'column authors.nope does not exist',
        details: null,
        hint: null,
      },
    });
    expect((await get('/authors?select=name,posts(nope)')).body).toMatchObject({
      code: '42703',
      message: 'column posts_1.nope does not exist',
    });
    expect((await get('/authors?select=name,posts(id,duos(nope))')).body).toMatchObject({
      code: 'PGRST200',
    });
  });

  it('suggests a close name for an unknown relationship', async () => {
    expect((await get('/authors?select=name,post(id)')).body).toEqual({
      code: 'PGRST200',
      message: "Could not find a relationship between 'authors' and 'post' in the schema cache",
      details:
        "Searched for a foreign key relationship between 'authors' and 'post' in the schema 'public', but no matches were found.",
      hint: "Perhaps you meant 'posts' instead of 'post'.",
    });
  });
});
