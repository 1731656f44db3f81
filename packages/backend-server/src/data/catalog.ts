/**
 * Reads what a dump needs from the catalog, inside the dump's transaction (run with
 * `search_path = pg_catalog`, so every name the deparse functions print is qualified).
 */
import type { Queryable } from '../db/index';
import { quoteIdent, quoteLiteral, quoteQualified } from '../db/quote';
import { appSchemaCondition, PLATFORM_DATA, PLATFORM_SCHEMAS } from './scope';

const APP = appSchemaCondition('n.nspname');
/** Not a member of an extension (the extension creates it). */
const notExtension = (cls: string, oid: string) =>
  `not exists (select 1 from pg_depend e where e.classid = '${cls}'::regclass and e.objid = ${oid} and e.deptype = 'e')`;
/** A table whose rows the platform keeps for the project (see scope.ts). */
const PLATFORM_ROWS = `(n.nspname in (${PLATFORM_DATA.schemas.map(quoteLiteral).join(', ')}) or
  (n.nspname || '.' || c.relname) in (${PLATFORM_DATA.tables.map(quoteLiteral).join(', ')}))`;
const PLATFORM = `n.nspname in (${PLATFORM_SCHEMAS.map(quoteLiteral).join(', ')})`;

/** A pre-data object: created before the rows are loaded, in dependency order. */
export interface PreObject {
  /** `pg_class:123`, `pg_type:45`, `pg_proc:67`, `schema:x`, `extension:y`. */
  key: string;
  rank: number;
  oid: number;
  sql: string;
}

/** A table whose rows are dumped. */
export interface DataTable {
  schema: string;
  name: string;
  columns: string[];
}

const int = (v: unknown) => Number(v);

export async function readSchemas(q: Queryable, only: readonly string[] | null) {
  const { rows } = await q.query<{ name: string }>(
    `select n.nspname as name from pg_namespace n where ${APP} order by 1`,
  );
  return rows.map((r) => r.name).filter((name) => !only || only.includes(name));
}

/** Schemas, extensions, types, sequences, tables, functions and views of the app's schemas. */
export async function readPreData(q: Queryable, schemas: readonly string[]): Promise<PreObject[]> {
  const out: PreObject[] = [];
  const inSchemas = `n.nspname = any($1::text[])`;
  // A schema an extension's script creates (pg_cron's `cron`, pg_net's `net`) comes back with
  // the extension.
  const members = await q.query<{ name: string }>(
    `select n.nspname as name from pg_namespace n where not ${notExtension('pg_namespace', 'n.oid')}`,
  );
  const created = new Set(members.rows.map((r) => r.name));
  for (const name of schemas) {
    if (name !== 'public' && !created.has(name))
      out.push({
        key: `schema:${name}`,
        rank: 0,
        oid: 0,
        sql: `create schema if not exists ${quoteIdent(name)};`,
      });
  }
  const ext = await q.query<{ name: string; schema: string }>(
    `select e.extname as name, n.nspname as schema from pg_extension e
       join pg_namespace n on n.oid = e.extnamespace where e.extname <> 'plpgsql' order by e.oid`,
  );
  for (const e of ext.rows) {
    out.push({
      key: `extension:${e.name}`,
      rank: 1,
      oid: 0,
      sql: `create extension if not exists ${quoteIdent(e.name)} with schema ${quoteIdent(e.schema)};`,
    });
  }

  const types = await q.query<{
    oid: string;
    schema: string;
    name: string;
    kind: string;
    labels: string[] | null;
    base: string | null;
    notnull: boolean;
    def: string | null;
    checks: string[] | null;
    attrs: { name: string; type: string }[] | null;
    subtype: string | null;
  }>(
    `select t.oid::int8::text as oid, n.nspname as schema, t.typname as name, t.typtype::text as kind,
            (select json_agg(e.enumlabel order by e.enumsortorder) from pg_enum e where e.enumtypid = t.oid) as labels,
            case when t.typtype = 'd' then format_type(t.typbasetype, t.typtypmod) end as base,
            t.typnotnull as notnull, t.typdefault as def,
            (select json_agg(pg_get_constraintdef(c.oid) order by c.conname) from pg_constraint c
              where c.contypid = t.oid and c.contype = 'c') as checks,
            (select json_agg(json_build_object('name', a.attname, 'type', format_type(a.atttypid, a.atttypmod)) order by a.attnum)
               from pg_attribute a where a.attrelid = t.typrelid and a.attnum > 0 and not a.attisdropped) as attrs,
            (select format_type(r.rngsubtype, null) from pg_range r where r.rngtypid = t.oid) as subtype
       from pg_type t join pg_namespace n on n.oid = t.typnamespace
      where ${inSchemas} and t.typtype in ('e', 'd', 'c', 'r')
        and (t.typtype <> 'c' or (select c.relkind from pg_class c where c.oid = t.typrelid) = 'c')
        and ${notExtension('pg_type', 't.oid')}`,
    [schemas],
  );
  for (const t of types.rows) {
    const name = quoteQualified(t.schema, t.name);
    let sql: string;
    if (t.kind === 'e')
      sql = `create type ${name} as enum (${(t.labels ?? []).map(quoteLiteral).join(', ')});`;
    else if (t.kind === 'c')
      sql = `create type ${name} as (${(t.attrs ?? []).map((a) => `${quoteIdent(a.name)} ${a.type}`).join(', ')});`;
    else if (t.kind === 'r') sql = `create type ${name} as range (subtype = ${t.subtype});`;
    else {
      sql = `create domain ${name} as ${t.base}${t.def !== null ? ` default ${t.def}` : ''}${t.notnull ? ' not null' : ''}${(t.checks ?? []).map((c) => ` ${c}`).join('')};`;
    }
    out.push({ key: `pg_type:${t.oid}`, rank: 2, oid: int(t.oid), sql });
  }

  const seqs = await q.query<{
    oid: string;
    schema: string;
    name: string;
    type: string;
    start: string;
    inc: string;
    min: string;
    max: string;
    cache: string;
    cycle: boolean;
  }>(
    `select c.oid::int8::text as oid, n.nspname as schema, c.relname as name, format_type(s.seqtypid, null) as type,
            s.seqstart::text as start, s.seqincrement::text as inc, s.seqmin::text as min,
            s.seqmax::text as max, s.seqcache::text as cache, s.seqcycle as cycle
       from pg_class c join pg_namespace n on n.oid = c.relnamespace join pg_sequence s on s.seqrelid = c.oid
      where c.relkind = 'S' and ${inSchemas} and ${notExtension('pg_class', 'c.oid')}
        and not exists (select 1 from pg_depend d where d.classid = 'pg_class'::regclass
                          and d.objid = c.oid and d.deptype = 'i')`,
    [schemas],
  );
  for (const s of seqs.rows) {
    out.push({
      key: `pg_class:${s.oid}`,
      rank: 3,
      oid: int(s.oid),
      sql: `create sequence ${quoteQualified(s.schema, s.name)} as ${s.type} increment by ${s.inc} minvalue ${s.min} maxvalue ${s.max} start with ${s.start} cache ${s.cache}${s.cycle ? ' cycle' : ''};`,
    });
  }

  const tables = await q.query<{
    oid: string;
    schema: string;
    name: string;
    kind: string;
    persistence: string;
    partition: boolean;
    parent: string | null;
    bound: string | null;
    partkey: string | null;
    options: string[] | null;
  }>(
    `select c.oid::int8::text as oid, n.nspname as schema, c.relname as name, c.relkind::text as kind,
            c.relpersistence::text as persistence, c.relispartition as partition,
            (select quote_ident(pn.nspname) || '.' || quote_ident(pc.relname) from pg_inherits i
               join pg_class pc on pc.oid = i.inhparent join pg_namespace pn on pn.oid = pc.relnamespace
              where i.inhrelid = c.oid) as parent,
            case when c.relispartition then pg_get_expr(c.relpartbound, c.oid) end as bound,
            case when c.relkind = 'p' then pg_get_partkeydef(c.oid) end as partkey,
            c.reloptions::text[] as options
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where c.relkind in ('r', 'p') and ${inSchemas} and ${notExtension('pg_class', 'c.oid')}`,
    [schemas],
  );
  const oids = tables.rows.map((t) => t.oid);
  const cols = await q.query<{
    rel: string;
    name: string;
    type: string;
    notnull: boolean;
    identity: string;
    generated: string;
    def: string | null;
    collation: string | null;
  }>(
    `select a.attrelid::int8::text as rel, a.attname as name, format_type(a.atttypid, a.atttypmod) as type,
            a.attnotnull as notnull, a.attidentity::text as identity, a.attgenerated::text as generated,
            pg_get_expr(d.adbin, d.adrelid) as def,
            (select quote_ident(cn.nspname) || '.' || quote_ident(co.collname) from pg_collation co
               join pg_namespace cn on cn.oid = co.collnamespace
              where co.oid = a.attcollation and a.attcollation <> t.typcollation) as collation
       from pg_attribute a join pg_type t on t.oid = a.atttypid
       left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
      where a.attrelid = any($1::int8[]::oid[]) and a.attnum > 0 and not a.attisdropped
      order by a.attrelid, a.attnum`,
    [oids],
  );
  const checks = await q.query<{ rel: string; name: string; def: string }>(
    `select conrelid::int8::text as rel, conname as name, pg_get_constraintdef(oid) as def
       from pg_constraint where contype = 'c' and conislocal and conrelid = any($1::int8[]::oid[])
      order by conname`,
    [oids],
  );
  for (const t of tables.rows) {
    const name = quoteQualified(t.schema, t.name);
    const unlogged = t.persistence === 'u' ? 'unlogged ' : '';
    let sql: string;
    if (t.partition && t.parent) {
      sql = `create ${unlogged}table ${name} partition of ${t.parent} ${t.bound};`;
    } else {
      const lines = cols.rows
        .filter((c) => c.rel === t.oid)
        .map((c) => {
          let line = `  ${quoteIdent(c.name)} ${c.type}`;
          if (c.collation) line += ` collate ${c.collation}`;
          if (c.generated === 's') line += ` generated always as (${c.def}) stored`;
          else if (c.identity === 'a') line += ' generated always as identity';
          else if (c.identity === 'd') line += ' generated by default as identity';
          else if (c.def !== null) line += ` default ${c.def}`;
          if (c.notnull && !c.identity) line += ' not null';
          return line;
        });
      for (const c of checks.rows.filter((k) => k.rel === t.oid)) {
        lines.push(`  constraint ${quoteIdent(c.name)} ${c.def}`);
      }
      sql = `create ${unlogged}table ${name} (\n${lines.join(',\n')}\n)${t.partkey ? ` partition by ${t.partkey}` : ''}${
        t.options?.length ? ` with (${t.options.join(', ')})` : ''
      };`;
    }
    out.push({ key: `pg_class:${t.oid}`, rank: 5, oid: int(t.oid), sql });
  }

  const funcs = await q.query<{ oid: string; def: string }>(
    `select p.oid::int8::text as oid, pg_get_functiondef(p.oid) as def
       from pg_proc p join pg_namespace n on n.oid = p.pronamespace
      where ${inSchemas} and p.prokind in ('f', 'p') and ${notExtension('pg_proc', 'p.oid')}`,
    [schemas],
  );
  for (const f of funcs.rows) {
    out.push({ key: `pg_proc:${f.oid}`, rank: 4, oid: int(f.oid), sql: `${f.def.trimEnd()};` });
  }

  const views = await q.query<{
    oid: string;
    schema: string;
    name: string;
    kind: string;
    def: string;
    options: string[] | null;
  }>(
    `select c.oid::int8::text as oid, n.nspname as schema, c.relname as name, c.relkind::text as kind,
            pg_get_viewdef(c.oid) as def, c.reloptions::text[] as options
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where c.relkind in ('v', 'm') and ${inSchemas} and ${notExtension('pg_class', 'c.oid')}`,
    [schemas],
  );
  for (const v of views.rows) {
    const body = v.def.trim().replace(/;$/, '');
    const name = quoteQualified(v.schema, v.name);
    const sql =
      v.kind === 'm'
        ? `create materialized view ${name} as\n${body}\nwith no data;`
        : `create view ${name}${v.options?.length ? ` with (${v.options.join(', ')})` : ''} as\n${body};`;
    out.push({ key: `pg_class:${v.oid}`, rank: 6, oid: int(v.oid), sql });
  }
  return out;
}

/**
 * Edges "object depends on object" between the given keys, from pg_depend, with column
 * defaults, check constraints, view rules and row/array types folded into what owns them.
 */
export async function readDependencies(q: Queryable, keys: ReadonlySet<string>) {
  const { rows } = await q.query<{ cls: string; obj: string; refcls: string; ref: string }>(
    `with owner(cls, obj, owner_cls, owner) as (
       select 'pg_attrdef', oid, 'pg_class', adrelid from pg_attrdef
       union all select 'pg_constraint', oid, 'pg_class', conrelid from pg_constraint where contype = 'c' and conrelid <> 0
       union all select 'pg_constraint', oid, 'pg_type', contypid from pg_constraint where contypid <> 0
       union all select 'pg_rewrite', oid, 'pg_class', ev_class from pg_rewrite
       union all select 'pg_type', t.oid, 'pg_class', t.typrelid from pg_type t
         join pg_class c on c.oid = t.typrelid where c.relkind <> 'c'
       union all select 'pg_class', c.oid, 'pg_type', c.reltype from pg_class c where c.relkind = 'c'
       union all select 'pg_type', t.oid, 'pg_type', t.typelem from pg_type t where t.typcategory = 'A' and t.typelem <> 0
     ),
     dep as (
       select d.classid::regclass::text as cls, d.objid, d.refclassid::regclass::text as refcls, d.refobjid
         from pg_depend d where d.deptype in ('n', 'a')
     )
     select coalesce(o.owner_cls, dep.cls) as cls, coalesce(o.owner, dep.objid)::int8::text as obj,
            coalesce(r.owner_cls, dep.refcls) as refcls, coalesce(r.owner, dep.refobjid)::int8::text as ref
       from dep
       left join owner o on o.cls = dep.cls and o.obj = dep.objid
       left join owner r on r.cls = dep.refcls and r.obj = dep.refobjid`,
  );
  const edges: [string, string][] = [];
  for (const r of rows) {
    const from = `${r.cls}:${r.obj}`;
    const to = `${r.refcls}:${r.ref}`;
    if (from !== to && keys.has(from) && keys.has(to)) edges.push([from, to]);
  }
  return edges;
}

/** Tables whose rows are dumped: the app's, and the platform's project rows. */
export async function readDataTables(
  q: Queryable,
  schemas: readonly string[],
  platform: boolean,
): Promise<DataTable[]> {
  const { rows } = await q.query<{ schema: string; name: string; columns: string[] }>(
    `select n.nspname as schema, c.relname as name,
            (select json_agg(a.attname order by a.attnum) from pg_attribute a
              where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped and a.attgenerated = '') as columns
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where c.relkind = 'r'
        and (${notExtension('pg_class', 'c.oid')} or c.oid in (select unnest(extconfig) from pg_extension))
        and (n.nspname = any($1::text[]) or ($2 and ${PLATFORM_ROWS}))
      order by (${PLATFORM}) desc, n.nspname, c.relname`,
    [schemas, platform],
  );
  return rows.map((r) => ({ schema: r.schema, name: r.name, columns: r.columns ?? [] }));
}

// An extension's own tables are not dumped, except the rows of those it marks as
// configuration (pg_extension_config_dump), as pg_dump does: pgmq's queue list.

/** `setval` for every sequence of the app and of the platform's project tables that was used. */
export async function readSequenceValues(
  q: Queryable,
  schemas: readonly string[],
  platform: boolean,
) {
  const { rows } = await q.query<{ name: string; value: string }>(
    `with seqs as materialized (
       select c.oid, quote_ident(n.nspname) || '.' || quote_ident(c.relname) as name
         from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where c.relkind = 'S'
          and (n.nspname = any($1::text[]) or ($2 and exists (
            select 1 from pg_depend d join pg_class c2 on c2.oid = d.refobjid
              join pg_namespace n2 on n2.oid = c2.relnamespace
             where d.classid = 'pg_class'::regclass and d.objid = c.oid and d.deptype in ('a', 'i')
               and ${PLATFORM_ROWS.replaceAll('n.', 'n2.').replaceAll('c.', 'c2.')})))
     ),
     valued as materialized (select name, pg_sequence_last_value(oid)::text as value from seqs)
     select name, value from valued where value is not null order by 1`,
    [schemas, platform],
  );
  return rows.map((r) => `select pg_catalog.setval(${quoteLiteral(r.name)}, ${r.value}, true);`);
}
