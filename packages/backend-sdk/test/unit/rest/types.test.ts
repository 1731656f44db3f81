import { describe, expectTypeOf, it } from 'vitest';
import { createClient } from '../../../src/client';
import type { RestError } from '../../../src/errors';
import { createRestClient } from '../../../src/rest/client';
import type { Json } from '../../../src/rest/types';

/** A `Database` type in the shape the type generator emits. */
type Database = {
  public: {
    Tables: {
      authors: {
        Row: { id: number; name: string };
        Insert: { id?: number; name: string };
        Update: { id?: number; name?: string };
        Relationships: [];
      };
      books: {
        Row: {
          id: number;
          author_id: number | null;
          title: string;
          year: number | null;
          meta: Json;
        };
        Insert: {
          id?: number;
          author_id?: number | null;
          title: string;
          year?: number | null;
          meta?: Json;
        };
        Update: {
          id?: number;
          author_id?: number | null;
          title?: string;
          year?: number | null;
          meta?: Json;
        };
        Relationships: [
          {
            foreignKeyName: 'books_author_id_fkey';
            columns: ['author_id'];
            isOneToOne: false;
            referencedRelation: 'authors';
            referencedColumns: ['id'];
          },
        ];
      };
    };
    Views: {
      recent_books: { Row: { id: number | null; title: string | null }; Relationships: [] };
    };
    Functions: {
      add: { Args: { a: number; b: number }; Returns: number };
      books_by_year: {
        Args: { y: number };
        Returns: Database['public']['Tables']['books']['Row'][];
      };
    };
    Enums: Record<string, never>;
    CompositeTypes: Record<string, never>;
  };
  extra: {
    Tables: {
      notes: {
        Row: { id: number; body: string };
        Insert: { body: string };
        Update: { body?: string };
        Relationships: [];
      };
    };
    Views: Record<string, never>;
    Functions: Record<string, never>;
  };
};

const rest = createRestClient<Database>('http://127.0.0.1:1', 'key');

describe('typed REST (type-level tests)', () => {
  it('infers rows from select strings: columns, aliases, casts, JSON paths', () => {
    const q = rest
      .from('books')
      .select('id, name:title, year::text, pages:meta->pages, kind:meta->>kind');
    type Row = Awaited<typeof q>['data'];
    expectTypeOf<Row>().toEqualTypeOf<
      { id: number; name: string; year: string; pages: Json; kind: string }[] | null
    >();
  });

  it('infers embeds: many-to-one is object | null, !inner non-null, one-to-many an array', () => {
    const one = rest.from('books').select('title, author:authors(name)');
    expectTypeOf<NonNullable<Awaited<typeof one>['data']>[number]>().toEqualTypeOf<{
      title: string;
      author: { name: string } | null;
    }>();
    const inner = rest.from('books').select('title, authors!inner(id, name)');
    expectTypeOf<NonNullable<Awaited<typeof inner>['data']>[number]['authors']>().toEqualTypeOf<{
      id: number;
      name: string;
    }>();
    const many = rest.from('authors').select('name, books(title, year)');
    expectTypeOf<NonNullable<Awaited<typeof many>['data']>[number]['books']>().toEqualTypeOf<
      { title: string; year: number | null }[]
    >();
  });

  it('infers spreads and embeds named by foreign key', () => {
    // The foreign key is nullable: the spread fields are too (as postgrest-js infers them).
    const spread = rest.from('books').select('title, ...authors(author_name:name)');
    expectTypeOf<NonNullable<Awaited<typeof spread>['data']>[number]>().toEqualTypeOf<{
      title: string;
      author_name: string | null;
    }>();
    const innerAlias = rest.from('books').select('authors(who:name)');
    expectTypeOf<NonNullable<Awaited<typeof innerAlias>['data']>[number]>().toEqualTypeOf<{
      authors: { who: string } | null;
    }>();
    const byKey = rest.from('books').select('writer:books_author_id_fkey(name)');
    expectTypeOf<NonNullable<Awaited<typeof byKey>['data']>[number]>().toEqualTypeOf<{
      writer: { name: string } | null;
    }>();
  });

  it('star and aggregates', () => {
    const all = rest.from('authors').select();
    expectTypeOf<NonNullable<Awaited<typeof all>['data']>[number]>().toEqualTypeOf<{
      id: number;
      name: string;
    }>();
    const count = rest.from('books').select('count()');
    expectTypeOf<NonNullable<Awaited<typeof count>['data']>[number]>().toEqualTypeOf<{
      count: number;
    }>();
  });

  it('refuses unknown columns and relations in select strings at compile time', () => {
    // @ts-expect-error: column 'nope' does not exist
    rest.from('books').select('nope');
    // @ts-expect-error: column 'nme' does not exist (inside an embed)
    rest.from('books').select('title, authors(nme)');
    // @ts-expect-error: could not find a relation 'writers'
    rest.from('books').select('title, writers(name)');
    // @ts-expect-error: after a mutation too
    rest.from('books').insert({ title: 'x' }).select('titel');
    rest.from('books').select('title, authors(name)');
  });

  it('checks filters and mutation payloads against the schema', () => {
    rest.from('books').select().eq('year', 1974).in('id', [1, 2]).eq('authors.name', 'x');
    // @ts-expect-error: unknown column
    rest.from('books').select().eq('nope', 1);
    // @ts-expect-error: wrong value type
    rest.from('books').select().eq('year', 'nineteen');
    rest.from('authors').insert({ name: 'a' });
    // @ts-expect-error: missing required column
    rest.from('authors').insert({});
    rest.from('authors').update({ name: 'b' }).eq('id', 1);
    // @ts-expect-error: unknown table
    rest.from('nope');
  });

  it('single / maybeSingle / csv / throwOnError change the result type', () => {
    const single = rest.from('authors').select('name').single();
    expectTypeOf<Awaited<typeof single>['data']>().toEqualTypeOf<{ name: string } | null>();
    const maybe = rest.from('authors').select('name').maybeSingle();
    expectTypeOf<Awaited<typeof maybe>['data']>().toEqualTypeOf<{ name: string } | null>();
    const csv = rest.from('authors').select().csv();
    expectTypeOf<Awaited<typeof csv>['data']>().toEqualTypeOf<string | null>();
    const thrown = rest.from('authors').select('name').single().throwOnError();
    expectTypeOf<Awaited<typeof thrown>['data']>().toEqualTypeOf<{ name: string }>();
    expectTypeOf<Awaited<typeof thrown>['error']>().toEqualTypeOf<null>();
  });

  it('results are a discriminated union on error', async () => {
    const r = await rest.from('authors').select('id');
    if (r.error) {
      expectTypeOf(r.error).toEqualTypeOf<RestError>();
      expectTypeOf(r.data).toEqualTypeOf<null>();
    } else {
      expectTypeOf(r.data).toEqualTypeOf<{ id: number }[]>();
    }
  });

  it('types rpc arguments and results, and other schemas', () => {
    const sum = rest.rpc('add', { a: 1, b: 2 });
    expectTypeOf<Awaited<typeof sum>['data']>().toEqualTypeOf<number | null>();
    // @ts-expect-error: wrong argument type
    rest.rpc('add', { a: '1', b: 2 });
    const set = rest.rpc('books_by_year', { y: 1974 }).eq('title', 'x');
    expectTypeOf<
      NonNullable<Awaited<typeof set>['data']>[number]['title']
    >().toEqualTypeOf<string>();
    const notes = rest.schema('extra').from('notes').select('body');
    expectTypeOf<Awaited<typeof notes>['data']>().toEqualTypeOf<{ body: string }[] | null>();
  });

  it('createClient carries the Database type', () => {
    const client = createClient<Database>('http://127.0.0.1:1', 'key', {
      auth: { autoRefreshToken: false },
    });
    const q = client.from('authors').select('name');
    expectTypeOf<Awaited<typeof q>['data']>().toEqualTypeOf<{ name: string }[] | null>();
    client.auth.dispose();
  });

  it('untyped clients accept anything', () => {
    const loose = createRestClient('http://127.0.0.1:1', 'key');
    const q = loose.from('whatever').select('a, b').eq('c', 1);
    // biome-ignore lint/suspicious/noExplicitAny: untyped rows are any
    expectTypeOf<Awaited<typeof q>['data']>().toEqualTypeOf<any[] | null>();
  });
});
