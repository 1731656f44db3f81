import type { Database } from '../db/index';
import { quoteIdent, quoteQualified } from '../db/quote';
import type { RowsPage, TableDetail, TableList } from './api-types';

const KINDS: Record<string, string> = {
  r: 'table',
  p: 'partitioned table',
  v: 'view',
  m: 'materialized view',
  f: 'foreign table',
};

/** Schemas that are Postgres's own, never listed. */
const SYSTEM = `n.nspname not in ('pg_catalog', 'information_schema', 'pg_toast') and n.nspname not like 'pg\\_%'`;

/** Every schema (with no table too) and every table, view and materialized view. */
export async function listTables(db: Database): Promise<TableList> {
  const schemas = await db.query<{ name: string }>(
    `select n.nspname as name from pg_namespace n where ${SYSTEM} order by 1`,
  );
  const { rows } = await db.query<{
    schema: string;
    name: string;
    relkind: string;
    rls: boolean;
    estimate: string;
  }>(
    `select n.nspname as schema, c.relname as name, c.relkind::text as relkind,
            c.relrowsecurity as rls, c.reltuples::bigint::text as estimate
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where c.relkind in ('r', 'p', 'v', 'm', 'f') and not c.relispartition and ${SYSTEM}
      order by 1, 2`,
  );
  return {
    schemas: schemas.rows.map((r) => r.name),
    tables: rows.map((r) => ({
      schema: r.schema,
      name: r.name,
      kind: KINDS[r.relkind] ?? r.relkind,
      rls: r.rls,
      estimate: Number(r.estimate),
    })),
  };
}

/** The oid of `schema.table`, or null. */
async function relation(db: Database, schema: string, table: string): Promise<number | null> {
  const { rows } = await db.query<{ oid: number }>(
    `select c.oid::int as oid from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = $1 and c.relname = $2 and c.relkind in ('r', 'p', 'v', 'm', 'f')`,
    [schema, table],
  );
  return rows[0]?.oid ?? null;
}

/** Columns, keys, indexes, constraints, RLS, policies and triggers of one table; null if none. */
export async function tableDetail(
  db: Database,
  schema: string,
  table: string,
): Promise<TableDetail | null> {
  const oid = await relation(db, schema, table);
  if (oid === null) return null;
  const [rel, columns, pk, indexes, constraints, policies, triggers] = await Promise.all([
    db.query<{ relkind: string; rls: boolean; force: boolean; estimate: string }>(
      `select relkind::text as relkind, relrowsecurity as rls, relforcerowsecurity as force,
              reltuples::bigint::text as estimate from pg_class where oid = $1`,
      [oid],
    ),
    db.query<{
      name: string;
      type: string;
      udt: string;
      category: string;
      notnull: boolean;
      default: string | null;
      identity: string;
      generated: string;
      enum_values: string[] | null;
    }>(
      `select a.attname as name, format_type(a.atttypid, a.atttypmod) as type, t.typname as udt,
              t.typcategory::text as category, a.attnotnull as notnull,
              pg_get_expr(d.adbin, d.adrelid) as default, a.attidentity::text as identity,
              a.attgenerated::text as generated,
              (select coalesce(json_agg(e.enumlabel order by e.enumsortorder), '[]'::json)
                 from pg_enum e where e.enumtypid = t.oid and t.typtype = 'e') as enum_values
         from pg_attribute a
         join pg_type t on t.oid = a.atttypid
         left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
        where a.attrelid = $1 and a.attnum > 0 and not a.attisdropped
        order by a.attnum`,
      [oid],
    ),
    db.query<{ name: string }>(
      `select a.attname as name
         from pg_index i
         cross join lateral unnest(i.indkey) with ordinality as k(attnum, ord)
         join pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.attnum
        where i.indrelid = $1 and i.indisprimary
        order by k.ord`,
      [oid],
    ),
    db.query<{ name: string; definition: string; primary: boolean; unique: boolean }>(
      `select c.relname as name, pg_get_indexdef(i.indexrelid) as definition,
              i.indisprimary as primary, i.indisunique as unique
         from pg_index i join pg_class c on c.oid = i.indexrelid
        where i.indrelid = $1 order by i.indisprimary desc, c.relname`,
      [oid],
    ),
    db.query<{ name: string; type: string; definition: string }>(
      `select conname as name, contype::text as type, pg_get_constraintdef(oid) as definition
         from pg_constraint where conrelid = $1 and contype <> 'n' order by contype, conname`,
      [oid],
    ),
    db.query<TableDetail['policies'][number]>(
      `select p.polname as name,
              case p.polcmd when 'r' then 'SELECT' when 'a' then 'INSERT' when 'w' then 'UPDATE'
                            when 'd' then 'DELETE' else 'ALL' end as command,
              p.polpermissive as permissive,
              (select coalesce(json_agg(case when r = 0 then 'public' else pg_get_userbyid(r)::text end), '[]'::json)
                 from unnest(p.polroles) as r) as roles,
              pg_get_expr(p.polqual, p.polrelid) as using,
              pg_get_expr(p.polwithcheck, p.polrelid) as check
         from pg_policy p where p.polrelid = $1 order by p.polname`,
      [oid],
    ),
    db.query<{ name: string; definition: string; enabled: boolean }>(
      `select tgname as name, pg_get_triggerdef(oid) as definition, tgenabled <> 'D' as enabled
         from pg_trigger where tgrelid = $1 and not tgisinternal order by tgname`,
      [oid],
    ),
  ]);
  const r = rel.rows[0];
  if (!r) return null;
  return {
    schema,
    name: table,
    kind: KINDS[r.relkind] ?? r.relkind,
    rls: r.rls,
    forceRls: r.force,
    estimate: Number(r.estimate),
    columns: columns.rows.map((c) => ({
      name: c.name,
      type: c.type,
      udt: c.udt,
      category: c.category,
      nullable: !c.notnull,
      default: c.default,
      identity: c.identity === 'a' ? 'always' : c.identity === 'd' ? 'by default' : null,
      generated: c.generated !== '',
      enumValues: c.enum_values && c.enum_values.length > 0 ? c.enum_values : null,
    })),
    primaryKey: pk.rows.map((k) => k.name),
    indexes: indexes.rows,
    constraints: constraints.rows,
    policies: policies.rows,
    triggers: triggers.rows,
  };
}

/** Turns row level security of a table on or off; false when there is no such table. */
export async function setRls(
  db: Database,
  schema: string,
  table: string,
  enabled: boolean,
): Promise<boolean> {
  const oid = await relation(db, schema, table);
  if (oid === null) return false;
  await db.query(
    `alter table ${quoteQualified(schema, table)} ${enabled ? 'enable' : 'disable'} row level security`,
  );
  return true;
}

/**
 * A page of rows of any table, read as the superuser (for schemas the REST API does not
 * expose): `order` must be one of the table's columns; values come back as text.
 */
export async function readRows(
  db: Database,
  schema: string,
  table: string,
  options: { limit: number; offset: number; order: string | null; ascending: boolean },
): Promise<RowsPage | null> {
  const detail = await tableDetail(db, schema, table);
  if (!detail) return null;
  const names = detail.columns.map((c) => c.name);
  const order = options.order && names.includes(options.order) ? options.order : null;
  const target = quoteQualified(schema, table);
  // Values as text (any type survives JSON); ordered by the column itself, not its text.
  const list = names.map((n) => `t.${quoteIdent(n)}::text as ${quoteIdent(n)}`).join(', ');
  const [page, count] = await Promise.all([
    db.query(
      `select ${list || 'null'} from ${target} as t${
        order ? ` order by t.${quoteIdent(order)} ${options.ascending ? 'asc' : 'desc'}` : ''
      } limit $1 offset $2`,
      [options.limit, options.offset],
    ),
    db.query<{ n: string }>(`select count(*)::text as n from ${target}`),
  ]);
  return { columns: names, rows: page.rows, total: Number(count.rows[0]?.n ?? 0) };
}
