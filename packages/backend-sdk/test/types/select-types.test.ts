/**
 * Type-level parity with supabase-js: for the generated `Database` type of the test schema
 * (`database.types.ts`, the server's `gen types` output), each select below infers the same
 * row type through this SDK as through `@supabase/postgrest-js` 2.109.0 (through
 * supabase-js's `createClient`). Checked by the type checker (`pnpm typecheck`, part of the
 * test command); at run time the test only builds the queries, it sends nothing.
 */
import { createClient as createOfficial } from '@supabase/supabase-js';
import { describe, expectTypeOf, it } from 'vitest';
import WebSocket from 'ws';
import { createClient } from '../../src/index';
import type { Database } from './database.types';

const ours = createClient<Database>('http://127.0.0.1:1', 'key', {
  auth: { persistSession: false, autoRefreshToken: false },
});
const theirs = createOfficial<Database>('http://127.0.0.1:1', 'key', {
  auth: { persistSession: false, autoRefreshToken: false },
  realtime: { transport: WebSocket as never },
});

/** The `data` of a successful result. */
type Data<Q> = Extract<Awaited<Q>, { error: null }> extends { data: infer D } ? D : never;

/** The same select on one relation through both clients (one helper per relation). */
const books = <Q extends string>(q: Q) => ({
  ours: ours.from('books').select<Q>(q as never),
  theirs: theirs.from('books').select(q),
});
const authors = <Q extends string>(q: Q) => ({
  ours: ours.from('authors').select<Q>(q as never),
  theirs: theirs.from('authors').select(q),
});
const reviews = <Q extends string>(q: Q) => ({
  ours: ours.from('reviews').select<Q>(q as never),
  theirs: theirs.from('reviews').select(q),
});
const messages = <Q extends string>(q: Q) => ({
  ours: ours.from('messages').select<Q>(q as never),
  theirs: theirs.from('messages').select(q),
});
const profiles = <Q extends string>(q: Q) => ({
  ours: ours.from('profiles').select<Q>(q as never),
  theirs: theirs.from('profiles').select(q),
});
const bookDetails = <Q extends string>(q: Q) => ({
  ours: ours.from('book_details').select<Q>(q as never),
  theirs: theirs.from('book_details').select(q),
});
const bookStats = <Q extends string>(q: Q) => ({
  ours: ours.from('book_stats').select<Q>(q as never),
  theirs: theirs.from('book_stats').select(q),
});
const todos = <Q extends string>(q: Q) => ({
  ours: ours.from('todos').select<Q>(q as never),
  theirs: theirs.from('todos').select(q),
});
const slots = <Q extends string>(q: Q) => ({
  ours: ours.from('slots').select<Q>(q as never),
  theirs: theirs.from('slots').select(q),
});

describe('select row types are the same as postgrest-js infers', () => {
  it('books', () => {
    const q1 = books('id, title');
    expectTypeOf<Data<typeof q1.ours>>().toEqualTypeOf<Data<typeof q1.theirs>>();
    const q2 = books('*');
    expectTypeOf<Data<typeof q2.ours>>().toEqualTypeOf<Data<typeof q2.theirs>>();
    const q3 = books('title, author:authors(name)');
    expectTypeOf<Data<typeof q3.ours>>().toEqualTypeOf<Data<typeof q3.theirs>>();
    const q4 = books('title, authors(*)');
    expectTypeOf<Data<typeof q4.ours>>().toEqualTypeOf<Data<typeof q4.theirs>>();
    const q5 = books('title, authors!inner(name)');
    expectTypeOf<Data<typeof q5.ours>>().toEqualTypeOf<Data<typeof q5.theirs>>();
    const q6 = books('title, author:authors!books_author_id_fkey(name)');
    expectTypeOf<Data<typeof q6.ours>>().toEqualTypeOf<Data<typeof q6.theirs>>();
    const q7 = books('title, authors!author_id(name)');
    expectTypeOf<Data<typeof q7.ours>>().toEqualTypeOf<Data<typeof q7.theirs>>();
    const q8 = books('title, reviews(stars, body)');
    expectTypeOf<Data<typeof q8.ours>>().toEqualTypeOf<Data<typeof q8.theirs>>();
    const q9 = books('title, reviews(count)');
    expectTypeOf<Data<typeof q9.ours>>().toEqualTypeOf<Data<typeof q9.theirs>>();
    const q10 = books('title, book_details(isbn, pages)');
    expectTypeOf<Data<typeof q10.ours>>().toEqualTypeOf<Data<typeof q10.theirs>>();
    const q11 = books('name:title, published:year');
    expectTypeOf<Data<typeof q11.ours>>().toEqualTypeOf<Data<typeof q11.theirs>>();
    const q12 = books('year::text');
    expectTypeOf<Data<typeof q12.ours>>().toEqualTypeOf<Data<typeof q12.theirs>>();
    const q13 = books('id::text, title');
    expectTypeOf<Data<typeof q13.ours>>().toEqualTypeOf<Data<typeof q13.theirs>>();
    const q14 = books('pages:meta->pages');
    expectTypeOf<Data<typeof q14.ours>>().toEqualTypeOf<Data<typeof q14.theirs>>();
    const q15 = books('meta->>kind');
    expectTypeOf<Data<typeof q15.ours>>().toEqualTypeOf<Data<typeof q15.theirs>>();
    const q16 = books('meta->nested->deep');
    expectTypeOf<Data<typeof q16.ours>>().toEqualTypeOf<Data<typeof q16.theirs>>();
    const q17 = books('title, ...authors(author_name:name)');
    expectTypeOf<Data<typeof q17.ours>>().toEqualTypeOf<Data<typeof q17.theirs>>();
    const q18 = books('count()');
    expectTypeOf<Data<typeof q18.ours>>().toEqualTypeOf<Data<typeof q18.theirs>>();
    const q19 = books('author_id, count()');
    expectTypeOf<Data<typeof q19.ours>>().toEqualTypeOf<Data<typeof q19.theirs>>();
    const q20 = books('year.max(), year.min()');
    expectTypeOf<Data<typeof q20.ours>>().toEqualTypeOf<Data<typeof q20.theirs>>();
    const q21 = books('total:year.sum(), year.avg()');
    expectTypeOf<Data<typeof q21.ours>>().toEqualTypeOf<Data<typeof q21.theirs>>();
    const q22 = books('title, reviews(stars, reviewer:profiles(username))');
    expectTypeOf<Data<typeof q22.ours>>().toEqualTypeOf<Data<typeof q22.theirs>>();
    const q23 = books('tags, meta');
    expectTypeOf<Data<typeof q23.ours>>().toEqualTypeOf<Data<typeof q23.theirs>>();
    const q24 = books('title, reviews!inner(stars)');
    expectTypeOf<Data<typeof q24.ours>>().toEqualTypeOf<Data<typeof q24.theirs>>();
    const q25 = books('*, authors(*)');
    expectTypeOf<Data<typeof q25.ours>>().toEqualTypeOf<Data<typeof q25.theirs>>();
  });

  it('authors', () => {
    const q26 = authors('name, books(title, year)');
    expectTypeOf<Data<typeof q26.ours>>().toEqualTypeOf<Data<typeof q26.theirs>>();
    const q27 = authors('name, books(count)');
    expectTypeOf<Data<typeof q27.ours>>().toEqualTypeOf<Data<typeof q27.theirs>>();
    const q28 = authors('name, books!inner(title)');
    expectTypeOf<Data<typeof q28.ours>>().toEqualTypeOf<Data<typeof q28.theirs>>();
    const q29 = authors('*, books(*, reviews(*))');
    expectTypeOf<Data<typeof q29.ours>>().toEqualTypeOf<Data<typeof q29.theirs>>();
  });

  it('reviews', () => {
    const q30 = reviews('stars, books(title)');
    expectTypeOf<Data<typeof q30.ours>>().toEqualTypeOf<Data<typeof q30.theirs>>();
    const q31 = reviews('stars, reviewer:profiles(username, mood)');
    expectTypeOf<Data<typeof q31.ours>>().toEqualTypeOf<Data<typeof q31.theirs>>();
    const q32 = reviews('stars, ...books(title)');
    expectTypeOf<Data<typeof q32.ours>>().toEqualTypeOf<Data<typeof q32.theirs>>();
    const q33 = reviews('stars.sum(), stars.avg()');
    expectTypeOf<Data<typeof q33.ours>>().toEqualTypeOf<Data<typeof q33.theirs>>();
  });

  it('messages', () => {
    const q34 = messages(
      'body, sender:profiles!sender_id(username), receiver:profiles!receiver_id(username)',
    );
    expectTypeOf<Data<typeof q34.ours>>().toEqualTypeOf<Data<typeof q34.theirs>>();
    const q35 = messages('body, profiles!messages_sender_id_fkey(username)');
    expectTypeOf<Data<typeof q35.ours>>().toEqualTypeOf<Data<typeof q35.theirs>>();
  });

  it('profiles', () => {
    const q36 = profiles('username, mood, born, settings');
    expectTypeOf<Data<typeof q36.ours>>().toEqualTypeOf<Data<typeof q36.theirs>>();
    const q37 = profiles('username, settings->theme, lang:settings->>lang');
    expectTypeOf<Data<typeof q37.ours>>().toEqualTypeOf<Data<typeof q37.theirs>>();
    const q38 = profiles('username, messages!sender_id(body)');
    expectTypeOf<Data<typeof q38.ours>>().toEqualTypeOf<Data<typeof q38.theirs>>();
    const q39 = profiles('username, reviews(stars, books(title))');
    expectTypeOf<Data<typeof q39.ours>>().toEqualTypeOf<Data<typeof q39.theirs>>();
  });

  it('book_details', () => {
    const q40 = bookDetails('isbn, books(title, year)');
    expectTypeOf<Data<typeof q40.ours>>().toEqualTypeOf<Data<typeof q40.theirs>>();
    const q41 = bookDetails('*, books(*)');
    expectTypeOf<Data<typeof q41.ours>>().toEqualTypeOf<Data<typeof q41.theirs>>();
  });

  it('book_stats', () => {
    const q42 = bookStats('id, title, review_count, avg_stars');
    expectTypeOf<Data<typeof q42.ours>>().toEqualTypeOf<Data<typeof q42.theirs>>();
    const q43 = bookStats('*');
    expectTypeOf<Data<typeof q43.ours>>().toEqualTypeOf<Data<typeof q43.theirs>>();
  });

  it('todos', () => {
    const q44 = todos('id, title, done, rank');
    expectTypeOf<Data<typeof q44.ours>>().toEqualTypeOf<Data<typeof q44.theirs>>();
  });

  it('slots', () => {
    const q45 = slots('label, during');
    expectTypeOf<Data<typeof q45.ours>>().toEqualTypeOf<Data<typeof q45.theirs>>();
  });

  it('rpc results and another schema', () => {
    const rpcOurs = ours.rpc('top_books').select('title, avg_stars');
    const rpcTheirs = theirs.rpc('top_books').select('title, avg_stars');
    expectTypeOf<Data<typeof rpcOurs>>().toEqualTypeOf<Data<typeof rpcTheirs>>();
    const extraOurs = ours.schema('extra').from('notes').select('id, body');
    const extraTheirs = theirs.schema('extra').from('notes').select('id, body');
    expectTypeOf<Data<typeof extraOurs>>().toEqualTypeOf<Data<typeof extraTheirs>>();
  });
});

describe('wrong names do not compile', () => {
  it('in select strings, embeds, filters, payloads, tables and rpc arguments', () => {
    // postgrest-js types these selects as SelectQueryError rows; this SDK refuses them.
    // @ts-expect-error: column 'titel' does not exist
    ours.from('books').select('titel');
    // @ts-expect-error: column 'nme' does not exist (in the embedded authors)
    ours.from('books').select('title, authors(nme)');
    // @ts-expect-error: could not find a relation 'writers'
    ours.from('books').select('title, writers(name)');
    // @ts-expect-error: not a column of books
    ours.from('books').select().eq('titel', 'x');
    // @ts-expect-error: not a column of books
    ours.from('books').select().in('titel', ['x']);
    // @ts-expect-error: not a column of books
    ours.from('books').insert({ titel: 'x' });
    // @ts-expect-error: not a column of books
    ours.from('books').update({ titel: 'x' });
    // @ts-expect-error: no such table
    ours.from('bookz');
    // @ts-expect-error: add takes a and b
    ours.rpc('add', { a: 1, c: 2 });
    // The same calls with the right names compile.
    ours.from('books').select('title, authors(name)').eq('title', 'x').in('year', [1974]);
    ours.rpc('add', { a: 1, b: 2 });
  });
});
