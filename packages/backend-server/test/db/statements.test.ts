import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgError } from '../../src/db/index';
import { quoteIdent } from '../../src/db/quote';
import type { RunningServer } from '../../src/server';
import { databaseKind, startTestServer } from '../support/server';

// Each statement is run several times: the first parses it, later ones (on PGlite) bind and
// execute the statement kept under its text. Every run must give the same values, on both
// engines alike.
const VALUES: [string, string, unknown[], Record<string, unknown>][] = [
  [
    'int2, int4, int8',
    'select $1::int2 as a, $2::int4 as b, $3::int8 as c',
    [7, '-8', '9007199254740993'],
    { a: 7, b: -8, c: '9007199254740993' },
  ],
  [
    'numeric, floats',
    'select $1::numeric as n, $2::float4 as f4, $3::float8 as f8',
    ['1.50', '0.5', 1.25],
    { n: '1.50', f4: 0.5, f8: 1.25 },
  ],
  [
    'bool, text, uuid',
    'select $1::bool as b, $2::text as t, $3::uuid as u',
    [true, 'é ✓', '00000000-0000-4000-a000-0000000000a1'],
    { b: true, t: 'é ✓', u: '00000000-0000-4000-a000-0000000000a1' },
  ],
  [
    'json, jsonb',
    'select $1::text::json as j, $2::text::jsonb as jb',
    ['{"b":1,"a":[1,"x",null]}', '{"b":1,"a":2}'],
    { j: { b: 1, a: [1, 'x', null] }, jb: { a: 2, b: 1 } },
  ],
  [
    'bytea',
    `select $1::bytea as b, '\\x00ff'::bytea as c`,
    ['\\x0102'],
    { b: '\\x0102', c: '\\x00ff' },
  ],
  [
    'dates and times',
    'select $1::date as d, $2::timestamp as ts, $3::interval as i, $4::time as t',
    ['2024-01-02', '2024-01-02 03:04:05.25', '1 day 02:00:00', '10:11:12'],
    { d: '2024-01-02', ts: '2024-01-02 03:04:05.25', i: '1 day 02:00:00', t: '10:11:12' },
  ],
  [
    'timestamptz (UTC)',
    `select ($1::timestamptz at time zone 'UTC')::text as ts`,
    ['2024-01-02T03:04:05Z'],
    { ts: '2024-01-02 03:04:05' },
  ],
  [
    'nulls',
    'select $1::int8 as a, $2::jsonb as b, $3::text as c, null as d',
    [null, null, null],
    { a: null, b: null, c: null, d: null },
  ],
  [
    'text arrays',
    `select array[$1::text, null, 'a,b', 'NULL', 'say "hi"'] as a`,
    ['x y'],
    { a: ['x y', null, 'a,b', 'NULL', 'say "hi"'] },
  ],
  [
    'int, bool and nested arrays',
    `select array[1, null, $1::int] as i, array[true, null] as b, '{{1,2},{3,null}}'::int[] as n`,
    [3],
    {
      i: [1, null, 3],
      b: [true, null],
      n: [
        [1, 2],
        [3, null],
      ],
    },
  ],
];

// Errors with every field the services read: code, message, detail, hint, position.
const ERRORS: [string, string, unknown[], Record<string, unknown>][] = [
  [
    'undefined column, with position',
    'select nope from statement_items where id = $1',
    [1],
    { code: '42703', message: 'column "nope" does not exist', position: '8' },
  ],
  [
    'unique violation, with detail',
    'insert into statement_items (id, label) values ($1, $2)',
    [1, 'again'],
    {
      code: '23505',
      message: 'duplicate key value violates unique constraint "statement_items_pkey"',
      detail: 'Key (id)=(1) already exists.',
    },
  ],
  [
    'raised, with detail and hint',
    'select statement_fail($1)',
    ['boom'],
    { code: 'P0001', message: 'boom', detail: 'the detail', hint: 'the hint' },
  ],
  [
    'bad input',
    'select $1::int as n',
    ['x'],
    { code: '22P02', message: 'invalid input syntax for type integer: "x"' },
  ],
];

const fieldsOf = (error: unknown) => {
  const e = error as Record<string, unknown>;
  const out: Record<string, unknown> = { ...pgError(error) };
  if (e.position !== undefined) out.position = String(e.position);
  for (const k of Object.keys(out)) if (out[k] === undefined) delete out[k];
  return out;
};

const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected the statement to fail');
    },
    (error: unknown) => fieldsOf(error),
  );

/**
 * Single statements through the handle, the path REST writes, rpc, storage and queues take.
 * On PGlite they are kept (named) statements, one protocol exchange each.
 */
describe(`single statements through the handle: kept statements (${databaseKind()})`, () => {
  let server: RunningServer;
  const db = () => server.db;

  beforeAll(async () => {
    server = await startTestServer();
    await db().exec(`
      create table public.statement_items (id int primary key, label text not null);
      insert into public.statement_items values (1, 'one');
      create function public.statement_fail(msg text) returns int language plpgsql as $$
      begin raise exception '%', msg using detail = 'the detail', hint = 'the hint'; end $$;`);
  });
  afterAll(() => server?.stop());

  it.each(VALUES)(
    'returns %s the same way every run and in read batches',
    async (_, text, params, row) => {
      for (let i = 0; i < 3; i++) {
        const r = await db().query(text, params);
        expect(r.rows).toEqual([row]);
        expect(r.fields.map((f) => f.name)).toEqual(Object.keys(row));
      }
      const [batched] = await db().readBatch([{ text, params }]);
      expect(batched).toMatchObject({ ok: true, value: { rows: [row] } });
      const inTx = await db().transaction((tx) => tx.query(text, params));
      expect(inTx.rows).toEqual([row]);
    },
  );

  it.each(ERRORS)('reports %s the same way every run', async (_, text, params, fields) => {
    // The statement kept after a run that succeeded, then failing with other parameters.
    await db().query('select $1::int as n', [1]);
    for (let i = 0; i < 3; i++) expect(await failure(db().query(text, params))).toEqual(fields);
    expect(await failure(db().transaction((tx) => tx.query(text, params)))).toEqual(fields);
    const [batched] = await db().readBatch([{ text, params }], { rollback: true });
    expect(batched?.ok).toBe(false);
    if (!batched?.ok && fields.code !== '23505') expect(fieldsOf(batched?.error)).toEqual(fields);
  });

  it('fails on the bound value of a kept statement, then runs it again', async () => {
    const text = 'select 10 / $1::int as q';
    expect((await db().query(text, [2])).rows).toEqual([{ q: 5 }]);
    expect(await failure(db().query(text, [0]))).toEqual({
      code: '22012',
      message: 'division by zero',
    });
    expect((await db().query(text, [5])).rows).toEqual([{ q: 2 }]);
  });

  it('keeps a bounded number of statements and runs evicted ones again', async () => {
    const texts = Array.from(
      { length: 300 },
      (_, i) => `select $1::int + 1 as ${quoteIdent(`c${i}`)}`,
    );
    for (const [i, text] of texts.entries())
      expect((await db().query(text, [i])).rows).toEqual([{ [`c${i}`]: i + 1 }]);
    // The first ones were evicted (and closed); they parse again.
    for (const [i, text] of texts.slice(0, 5).entries())
      expect((await db().query(text, [i])).rows).toEqual([{ [`c${i}`]: i + 1 }]);
    if (db().kind === 'pglite') {
      const { rows } = await db().query<{ n: number }>(
        'select count(*)::int as n from pg_prepared_statements',
      );
      expect(rows[0]?.n).toBeLessThanOrEqual(257);
      expect(rows[0]?.n).toBeGreaterThan(200);
    }
  });

  it('returns the new columns after alter table, however the table was changed', async () => {
    await db().exec(
      'create table public.statement_shape (a int); insert into public.statement_shape values (1)',
    );
    const read = () => db().query('select * from public.statement_shape');
    expect((await read()).rows).toEqual([{ a: 1 }]);
    // By a script, by a statement, and by a function the handle cannot see as DDL.
    await db().exec('alter table public.statement_shape add column b text default $$x$$');
    expect((await read()).rows).toEqual([{ a: 1, b: 'x' }]);
    await db().query('alter table public.statement_shape add column c int default 3');
    expect((await read()).rows).toEqual([{ a: 1, b: 'x', c: 3 }]);
    await db().exec(`create function public.statement_widen() returns void language plpgsql as $$
      begin execute 'alter table public.statement_shape alter column a type text'; end $$`);
    await db().query('select public.statement_widen()');
    expect((await read()).rows).toEqual([{ a: '1', b: 'x', c: 3 }]);
    expect((await read()).fields.map((f) => f.dataTypeID)).toEqual([25, 25, 23]);
    // In a transaction: a statement after DDL through the handle sees the new shape.
    await db().transaction(async (tx) => {
      expect((await tx.query('select * from public.statement_shape')).rows).toHaveLength(1);
      await tx.exec('alter table public.statement_shape drop column b');
      expect((await tx.query('select * from public.statement_shape')).rows).toEqual([
        { a: '1', c: 3 },
      ]);
    });
  });

  it('stays usable after errors in batches and transactions', async () => {
    const settled = await db().readBatch([
      { text: 'select 1 as n', params: [] },
      { text: 'select 1 / $1::int as n', params: [0] },
      { text: 'select 3 as n', params: [] },
    ]);
    expect(settled.map((s) => s.ok)).toEqual([true, false, false]);
    expect(fieldsOf(settled[1]?.ok ? null : settled[1]?.error).code).toBe('22012');
    expect(fieldsOf(settled[2]?.ok ? null : settled[2]?.error).code).toBe('25P02');
    expect((await db().query('select 3 as n')).rows).toEqual([{ n: 3 }]);
    await expect(
      db().transaction(async (tx) => {
        await tx.query('insert into public.statement_items values ($1, $2)', [50, 'fifty']);
        await tx.query('select 1 / $1::int as n', [0]);
      }),
    ).rejects.toMatchObject({ code: '22012' });
    expect(
      (
        await db().query(
          'select count(*)::int as n from public.statement_items where id = $1',
          [50],
        )
      ).rows,
    ).toEqual([{ n: 0 }]);
    expect((await db().query('select 4 as n')).rows).toEqual([{ n: 4 }]);
  });

  it('commits and rolls back through the transaction API with kept statements', async () => {
    const insert = 'insert into public.statement_items (id, label) values ($1, $2) returning id';
    const count = 'select count(*)::int as n from public.statement_items where id >= $1';
    await db().transaction(async (tx) => {
      expect((await tx.query(insert, [100, 'a'])).rows).toEqual([{ id: 100 }]);
      expect((await tx.query(insert, [101, 'b'])).affectedRows).toBe(1);
    });
    await expect(
      db().transaction(async (tx) => {
        await tx.query(insert, [102, 'c']);
        expect((await tx.query(count, [100])).rows).toEqual([{ n: 3 }]);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect((await db().query(count, [100])).rows).toEqual([{ n: 2 }]);
    const ro = db().transaction((tx) => tx.query(insert, [103, 'd']), { readOnly: true });
    await expect(ro).rejects.toMatchObject({ code: '25006' });
    expect((await db().query(count, [100])).rows).toEqual([{ n: 2 }]);
  });

  it('answers many concurrent requests each with its own result', async () => {
    const text = 'select $1::int * 2 as n, $2::text as tag';
    const calls = Array.from({ length: 60 }, (_, i) => {
      if (i % 10 === 3) return failure(db().query('select 1 / $1::int as n', [0]));
      if (i % 10 === 7)
        return db().transaction(async (tx) => (await tx.query(text, [i, `tx${i}`])).rows);
      return db()
        .query(text, [i, `q${i}`])
        .then((r) => r.rows);
    });
    const results = await Promise.all(calls);
    results.forEach((r, i) => {
      if (i % 10 === 3) expect(r).toEqual({ code: '22012', message: 'division by zero' });
      else expect(r).toEqual([{ n: i * 2, tag: `${i % 10 === 7 ? 'tx' : 'q'}${i}` }]);
    });
  });
});
