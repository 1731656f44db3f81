/**
 * REST scenarios: selects with embeds/spreads/casts/json paths/aggregates, every filter,
 * modifiers, counts, csv, inserts/upserts/updates/deletes, rpc, another schema, errors.
 * Reads use the seeded rows; writes touch the side's own todos (RLS) or rows tagged with the
 * side's name.
 */
import type { Any, Scenario } from '../scenario';

const read = (id: string, run: (c: Any) => PromiseLike<unknown>): Scenario => ({
  id: `rest.${id}`,
  run: (c) => run(c) as Promise<unknown>,
});

const books = (c: Any) => c.from('books');

export const restScenarios: Scenario[] = [
  // select shapes
  read('select.star', (c) => books(c).select().order('id')),
  read('select.columns', (c) => books(c).select('id, title').order('id')),
  read('select.alias-cast-json', (c) =>
    books(c)
      .select('name:title, year::text, pages:meta->pages, kind:meta->>kind, tags')
      .order('id'),
  ),
  read('select.embed-to-one', (c) => books(c).select('title, author:authors(name)').order('id')),
  read('select.embed-to-many', (c) =>
    c.from('authors').select('name, books(title, year)').order('id'),
  ),
  read('select.embed-inner-filter', (c) =>
    books(c).select('title, authors!inner(name)').eq('authors.name', 'Ursula').order('id'),
  ),
  read('select.embed-referenced-modifiers', (c) =>
    c
      .from('authors')
      .select('name, books(title)')
      .order('id')
      .order('title', { referencedTable: 'books', ascending: false })
      .limit(1, { referencedTable: 'books' }),
  ),
  read('select.embed-hint', (c) =>
    c
      .from('messages')
      .select(
        'body, sender:profiles!messages_sender_id_fkey(username), receiver:profiles!receiver_id(username)',
      )
      .order('id'),
  ),
  read('select.embed-one-to-one', (c) => books(c).select('title, book_details(isbn)').order('id')),
  read('select.spread', (c) => books(c).select('title, ...authors(author:name)').order('id')),
  read('select.aggregate-count', (c) => c.from('authors').select('name, books(count)').order('id')),
  read('select.view', (c) => c.from('book_stats').select('*').order('id')),
  read('select.enum-json-date', (c) =>
    c.from('profiles').select('username, mood, settings->theme, born').order('username'),
  ),
  // filters
  read('filter.eq', (c) => books(c).select('title').eq('year', 1974)),
  read('filter.neq', (c) => books(c).select('title').neq('year', 1974).order('id')),
  read('filter.gt-lt', (c) => books(c).select('title').gt('year', 1971).lt('year', 1974)),
  read('filter.gte-lte', (c) =>
    books(c).select('title').gte('year', 1972).lte('year', 1974).order('id'),
  ),
  read('filter.like-ilike', (c) =>
    books(c).select('title').like('title', '%The%').ilike('title', '%dis%'),
  ),
  read('filter.like-any-all', (c) =>
    books(c)
      .select('title')
      .likeAnyOf('title', ['%Cities%', '%Lathe%'])
      .ilikeAllOf('title', ['%the%', '%heaven%']),
  ),
  read('filter.is-null', (c) => c.from('reviews').select('stars').is('body', null)),
  read('filter.is-distinct', (c) => books(c).select('title').isDistinct('year', 1974).order('id')),
  read('filter.in', (c) => books(c).select('title').in('year', [1971, 1972]).order('id')),
  read('filter.in-strings', (c) =>
    books(c).select('title').in('title', ['Invisible Cities', 'a,b', 'x"y']),
  ),
  read('filter.not-in', (c) => books(c).select('title').notIn('year', [1971, 1972])),
  read('filter.array-ops', (c) =>
    books(c)
      .select('title')
      .contains('tags', ['scifi'])
      .containedBy('tags', ['scifi', 'classic'])
      .overlaps('tags', ['classic'])
      .order('id'),
  ),
  read('filter.json-contains', (c) => books(c).select('title').contains('meta', { pages: 165 })),
  read('filter.range', (c) =>
    c.from('slots').select('label').rangeGte('during', '[0,3)').rangeLt('during', '[6,8)'),
  ),
  read('filter.range-adjacent', (c) =>
    c.from('slots').select('label').rangeAdjacent('during', '[10,12)'),
  ),
  read('filter.text-search', (c) =>
    books(c).select('title').textSearch('title', 'heaven', { config: 'english', type: 'plain' }),
  ),
  read('filter.regex', (c) =>
    books(c).select('title').regexMatch('title', '^The').regexIMatch('title', 'heaven$'),
  ),
  read('filter.match', (c) => books(c).select('title').match({ year: 1972, author_id: 2 })),
  read('filter.not', (c) =>
    books(c).select('title').not('year', 'is', null).not('year', 'eq', 1974).order('id'),
  ),
  read('filter.or', (c) =>
    books(c).select('title').or('year.eq.1971,title.ilike.*cities*').order('id'),
  ),
  read('filter.or-referenced', (c) =>
    c
      .from('authors')
      .select('name, books(title)')
      .or('year.gt.1972,title.eq.Invisible Cities', { referencedTable: 'books' })
      .order('id'),
  ),
  read('filter.raw', (c) =>
    books(c).select('title').filter('year', 'in', '(1971,1974)').order('id'),
  ),
  // modifiers
  read('modifier.order-nulls', (c) =>
    c.from('reviews').select('body').order('body', { ascending: false, nullsFirst: true }),
  ),
  read('modifier.limit-range', (c) => books(c).select('title').order('id').range(1, 2)),
  read('modifier.limit', (c) => books(c).select('title').order('id').limit(2)),
  read('modifier.single', (c) => books(c).select('title').eq('id', 1).single()),
  read('modifier.single-error', (c) => books(c).select('title').single()),
  read('modifier.maybe-single-none', (c) => books(c).select('title').eq('id', 99).maybeSingle()),
  read('modifier.maybe-single-many', (c) => books(c).select('title').maybeSingle()),
  read('modifier.csv', (c) => books(c).select('id, title').order('id').csv()),
  read('modifier.abort', (c) => {
    const ac = new AbortController();
    ac.abort();
    return books(c).select().abortSignal(ac.signal);
  }),
  read('modifier.throw-on-error', async (c) => {
    try {
      return await c.from('nope').select().throwOnError();
    } catch (e) {
      return { rejected: e };
    }
  }),
  // counts
  read('count.exact-head', (c) => books(c).select('*', { count: 'exact', head: true })),
  read('count.exact-rows', (c) =>
    books(c).select('title', { count: 'exact' }).order('id').limit(1),
  ),
  read('count.planned', (c) => books(c).select('id', { count: 'planned', head: true })),
  read('count.estimated', (c) => books(c).select('id', { count: 'estimated', head: true })),
  // rpc
  read('rpc.post', (c) => c.rpc('add', { a: 1, b: 2 })),
  read('rpc.get', (c) => c.rpc('add', { a: 2, b: 3 }, { get: true })),
  read('rpc.setof-filtered', (c) =>
    c.rpc('books_by_year', { y: 1974 }).select('title').eq('author_id', 1),
  ),
  read('rpc.head-count', (c) =>
    c.rpc('books_by_year', { y: 1974 }, { head: true, count: 'exact' }),
  ),
  read('rpc.no-args', (c) => c.rpc('whoami')),
  read('rpc.default-args', (c) => c.rpc('top_books').select('title')),
  read('rpc.error-hint', (c) => c.rpc('fail', { msg: 'nope' })),
  read('schema.other', (c) => c.schema('extra').from('notes').select('body')),
  // errors
  read('error.unknown-table', (c) => c.from('nope').select()),
  read('error.unknown-column', (c) => books(c).select('nope')),
  read('error.bad-filter', (c) => books(c).select().eq('year', 'not a number')),
  // writes (own todos under RLS; side-tagged titles)
  {
    id: 'rest.insert.one',
    run: (c, ctx) =>
      c
        .from('todos')
        .insert({ title: ctx.u('one') })
        .select('title, done')
        .single(),
  },
  {
    id: 'rest.insert.many-minimal-count',
    run: (c, ctx) =>
      c
        .from('todos')
        .insert([{ title: ctx.u('a'), rank: 1 }, { title: ctx.u('b') }], { count: 'exact' }),
  },
  {
    id: 'rest.insert.default-to-null-false',
    run: (c, ctx) =>
      c
        .from('todos')
        .insert([{ title: ctx.u('c'), rank: 3 }, { title: ctx.u('d') }], { defaultToNull: false })
        .select('title, rank, done'),
  },
  {
    id: 'rest.insert.not-null-error',
    run: (c) => c.from('todos').insert({ done: true }).select(),
  },
  {
    id: 'rest.upsert.on-conflict',
    setup: async (c, ctx) => {
      await c.from('authors').insert({ name: ctx.u('author') });
    },
    run: (c, ctx) =>
      c
        .from('authors')
        .upsert({ name: ctx.u('author') }, { onConflict: 'name', ignoreDuplicates: true })
        .select('name'),
  },
  {
    id: 'rest.upsert.merge',
    setup: async (c, ctx) => {
      await c.from('todos').insert({ title: ctx.u('merge') });
    },
    run: async (c, ctx) => {
      const { data } = await c.from('todos').select('id').eq('title', ctx.u('merge')).single();
      return c
        .from('todos')
        .upsert({ id: data.id, title: ctx.u('merged'), done: true })
        .select('title, done');
    },
  },
  {
    id: 'rest.update.returning',
    setup: async (c, ctx) => {
      await c.from('todos').insert({ title: ctx.u('upd') });
    },
    run: (c, ctx) =>
      c.from('todos').update({ done: true }).eq('title', ctx.u('upd')).select('title, done'),
  },
  {
    id: 'rest.update.count',
    setup: async (c, ctx) => {
      await c.from('todos').insert([{ title: ctx.u('cnt1') }, { title: ctx.u('cnt2') }]);
    },
    run: (c, ctx) =>
      c.from('todos').update({ rank: 7 }, { count: 'exact' }).like('title', `cnt%-${ctx.tag}`),
  },
  {
    id: 'rest.delete.returning',
    setup: async (c, ctx) => {
      await c.from('todos').insert({ title: ctx.u('del') });
    },
    run: (c, ctx) => c.from('todos').delete().eq('title', ctx.u('del')).select('title'),
  },
  {
    id: 'rest.anon.rls-empty',
    client: { signedIn: false },
    run: (c) => c.from('todos').select('title'),
  },
];
