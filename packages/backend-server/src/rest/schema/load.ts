import type { Database, Queryable } from '../../db/index';
import type {
  Column,
  CompositeType,
  ComputedFunction,
  DbFunction,
  EnumType,
  ForeignKey,
  SchemaCache,
  Table,
} from './types';
import { qualified } from './types';

const TABLES = `
select n.nspname as schema, c.relname as name, c.relkind as kind,
  obj_description(c.oid, 'pg_class') as description,
  (c.relkind in ('r','p') or (c.relkind in ('v','f') and (pg_relation_is_updatable(c.oid::regclass, true) & 8) = 8)) as insertable,
  (c.relkind in ('r','p') or (c.relkind in ('v','f') and (pg_relation_is_updatable(c.oid::regclass, true) & 4) = 4)) as updatable,
  (c.relkind in ('r','p') or (c.relkind in ('v','f') and (pg_relation_is_updatable(c.oid::regclass, true) & 16) = 16)) as deletable
from pg_class c join pg_namespace n on n.oid = c.relnamespace
where c.relkind in ('r','v','m','f','p') and n.nspname = any($1::text[]) and not c.relispartition
order by 1, 2`;

const COLUMNS = `
select n.nspname as schema, c.relname as table, a.attname as name,
  format_type(a.atttypid, a.atttypmod) as type, format_type(a.atttypid, null) as base_type,
  t.typname as udt, t.typtype as typtype,
  t.typcategory as category, not a.attnotnull as nullable,
  case
    when t.typbasetype <> 0 and d.adbin is null then pg_get_expr(t.typdefaultbin, 0)
    when a.attidentity = 'd' then format('nextval(%L)', pg_get_serial_sequence(format('%I.%I', n.nspname, c.relname), a.attname))
    when a.attgenerated = 's' then null
    else pg_get_expr(d.adbin, d.adrelid)
  end as "default", a.attidentity as identity,
  a.attgenerated as generated, col_description(c.oid, a.attnum) as description,
  case when t.typtype = 'e' then (select json_agg(e.enumlabel order by e.enumsortorder)
    from pg_enum e where e.enumtypid = t.oid) end as enum_values
from pg_attribute a
join pg_class c on c.oid = a.attrelid
join pg_namespace n on n.oid = c.relnamespace
join pg_type t on t.oid = a.atttypid
left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
where a.attnum > 0 and not a.attisdropped and c.relkind in ('r','v','m','f','p')
  and n.nspname = any($1::text[])
order by n.nspname, c.relname, a.attnum`;

const CONSTRAINTS = `
select con.conname as name, con.contype as type, n.nspname as schema, c.relname as table,
  (select json_agg(a.attname order by k.ord) from unnest(con.conkey) with ordinality k(num, ord)
     join pg_attribute a on a.attrelid = con.conrelid and a.attnum = k.num) as columns,
  fn.nspname as ref_schema, fc.relname as ref_table,
  (select json_agg(a.attname order by k.ord) from unnest(con.confkey) with ordinality k(num, ord)
     join pg_attribute a on a.attrelid = con.confrelid and a.attnum = k.num) as ref_columns
from pg_constraint con
join pg_class c on c.oid = con.conrelid
join pg_namespace n on n.oid = c.relnamespace
left join pg_class fc on fc.oid = con.confrelid
left join pg_namespace fn on fn.oid = fc.relnamespace
where con.contype in ('p','u','f') and n.nspname = any($1::text[]) and con.conparentid = 0
order by con.conname`;

const FUNCTIONS = `
select n.nspname as schema, p.proname as name, p.provolatile as volatility, p.proretset as retset,
  p.pronargs as nargs, p.pronargdefaults as ndefaults, p.provariadic <> 0 as variadic,
  to_json(p.proargnames) as arg_names, to_json(p.proargmodes) as arg_modes,
  (select json_agg(format_type(u.t, null) order by u.o)
     from unnest(coalesce(p.proallargtypes, p.proargtypes::oid[])) with ordinality u(t, o)) as arg_types,
  format_type(p.prorettype, null) as return_type, rt.typtype as return_typtype,
  rn.nspname as return_table_schema, rc.relname as return_table,
  obj_description(p.oid, 'pg_proc') as description,
  p.prorettype = 'pg_catalog.trigger'::pg_catalog.regtype as is_trigger
from pg_proc p
join pg_namespace n on n.oid = p.pronamespace
join pg_type rt on rt.oid = p.prorettype
left join pg_class rc on rc.oid = rt.typrelid and rc.relkind in ('r','v','m','f','p')
left join pg_namespace rn on rn.oid = rc.relnamespace
where n.nspname = any($1::text[]) and p.prokind = 'f'
order by 1, 2, p.oid`;

// Functions of one parameter of a table's row type: computed fields and relationships.
const COMPUTED = `
select n.nspname as schema, p.proname as name, an.nspname as arg_schema, ac.relname as arg_table,
  format_type(p.prorettype, null) as return_type, rn.nspname as return_schema,
  rc.relname as return_table, p.proretset as retset, p.prorows as rows
from pg_proc p
join pg_namespace n on n.oid = p.pronamespace
join pg_type at on at.oid = p.proargtypes[0]
join pg_class ac on ac.oid = at.typrelid and ac.relkind in ('r','v','m','f','p')
join pg_namespace an on an.oid = ac.relnamespace
join pg_type rt on rt.oid = p.prorettype
left join pg_class rc on rc.oid = rt.typrelid and rc.relkind in ('r','v','m','f','p')
left join pg_namespace rn on rn.oid = rc.relnamespace
where p.pronargs = 1 and p.prokind = 'f' and an.nspname = any($1::text[])
  and n.nspname not in ('pg_catalog', 'information_schema')
order by 1, 2, p.oid`;

const ENUMS = `
select n.nspname as schema, t.typname as name,
  json_agg(e.enumlabel order by e.enumsortorder) as values
from pg_type t join pg_namespace n on n.oid = t.typnamespace join pg_enum e on e.enumtypid = t.oid
where n.nspname = any($1::text[]) group by 1, 2 order by 1, 2`;

const COMPOSITES = `
select n.nspname as schema, t.typname as name,
  json_agg(json_build_object('name', a.attname, 'type', format_type(a.atttypid, a.atttypmod))
    order by a.attnum) as attributes
from pg_type t join pg_namespace n on n.oid = t.typnamespace
join pg_class c on c.oid = t.typrelid and c.relkind = 'c'
join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
where n.nspname = any($1::text[]) group by 1, 2 order by 1, 2`;

// Row types that functions of the exposed schemas return from schemas that are not exposed
// (`pgmq.message_record` for `pgmq_public.read`): their columns shape the functions' rows.
const RESULT_ROW_TYPES = `
select n.nspname as schema, t.typname as name,
  json_agg(json_build_object('name', a.attname, 'type', format_type(a.atttypid, a.atttypmod))
    order by a.attnum) as attributes
from pg_type t join pg_namespace n on n.oid = t.typnamespace
join pg_attribute a on a.attrelid = t.typrelid and a.attnum > 0 and not a.attisdropped
where t.typrelid <> 0 and not n.nspname = any($1::text[])
  and t.oid in (select p.prorettype from pg_proc p join pg_namespace pn on pn.oid = p.pronamespace
                where pn.nspname = any($1::text[]) and p.prokind = 'f')
group by 1, 2 order by 1, 2`;

// Base-table columns each view reads (from the view rule's dependencies), to give views
// the keys and foreign keys of the tables they expose.
const VIEW_SOURCES = `
select vn.nspname as view_schema, v.relname as view, tn.nspname as table_schema, t.relname as table,
  json_agg(distinct a.attname) as columns
from pg_class v
join pg_namespace vn on vn.oid = v.relnamespace
join pg_rewrite r on r.ev_class = v.oid
join pg_depend d on d.objid = r.oid and d.classid = 'pg_rewrite'::regclass
  and d.refclassid = 'pg_class'::regclass and d.refobjsubid > 0
join pg_class t on t.oid = d.refobjid and t.oid <> v.oid and t.relkind in ('r','p','f')
join pg_namespace tn on tn.oid = t.relnamespace
join pg_attribute a on a.attrelid = t.oid and a.attnum = d.refobjsubid
where v.relkind in ('v','m') and vn.nspname = any($1::text[])
group by 1, 2, 3, 4`;

type R = Record<string, unknown>;

/**
 * Views expose the primary key and foreign keys of their base tables when they keep
 * the key columns under the same names (what the hosted service infers for views).
 */
function addViewKeys(rows: R[], tables: Map<string, Table>, foreignKeys: ForeignKey[]): void {
  const base = [...foreignKeys];
  for (const r of rows) {
    const view = tables.get(qualified(String(r.view_schema), String(r.view)));
    const table = tables.get(qualified(String(r.table_schema), String(r.table)));
    if (!view || !table) continue;
    const used = new Set((r.columns as string[]) ?? []);
    const keeps = (cols: string[]) =>
      cols.length > 0 && cols.every((c) => used.has(c) && view.columnMap.has(c));
    if (view.primaryKey.length === 0 && keeps(table.primaryKey)) {
      view.primaryKey = table.primaryKey;
      view.uniques.push(table.primaryKey);
    }
    for (const fk of base) {
      if (fk.schema === table.schema && fk.table === table.name && keeps(fk.columns)) {
        foreignKeys.push({ ...fk, schema: view.schema, table: view.name });
      }
      if (fk.refSchema === table.schema && fk.refTable === table.name && keeps(fk.refColumns)) {
        foreignKeys.push({ ...fk, refSchema: view.schema, refTable: view.name });
      }
    }
  }
}
const str = (v: unknown) => (v === null || v === undefined ? null : String(v));

/** Types whose values PostgREST casts to the unbounded form (any length is accepted). */
const castTypeOf = (type: string) =>
  type.replace(/^(bit|character)(\[\])?$/, (_, base: string, arr = '') => `${base} varying${arr}`);

/** The single unnamed parameter types a function may have and still be called. */
const UNNAMED_OK = new Set(['bytea', 'json', 'jsonb', 'text', 'xml']);

function toFunction(r: R): DbFunction {
  const names = (r.arg_names as string[] | null) ?? [];
  const modes = (r.arg_modes as string[] | null) ?? null;
  const types = (r.arg_types as string[] | null) ?? [];
  const inputs: DbFunction['args'] = [];
  const outColumns: DbFunction['outColumns'] = [];
  types.forEach((type, i) => {
    const mode = modes?.[i] ?? 'i';
    const name = names[i] ?? '';
    if (mode === 'i' || mode === 'b' || mode === 'v')
      inputs.push({
        name,
        type,
        castType: castTypeOf(type),
        hasDefault: false,
        variadic: mode === 'v',
      });
    if (mode === 'o' || mode === 'b' || mode === 't')
      outColumns.push({ name, type, baseType: type });
  });
  const ndefaults = Number(r.ndefaults ?? 0);
  for (let i = inputs.length - ndefaults; i < inputs.length; i++) {
    const arg = inputs[i];
    if (arg) arg.hasDefault = true;
  }
  const unnamed = inputs.filter((a) => a.name === '');
  const callable =
    r.is_trigger !== true &&
    (unnamed.length === 0 || (unnamed.length === 1 && UNNAMED_OK.has(unnamed[0]?.type ?? '')));
  return {
    schema: String(r.schema),
    name: String(r.name),
    args: inputs,
    outColumns,
    returnType: String(r.return_type),
    returnTyptype: String(r.return_typtype),
    returnTable: r.return_table
      ? { schema: String(r.return_table_schema), name: String(r.return_table) }
      : null,
    retset: r.retset === true,
    volatility: String(r.volatility) as DbFunction['volatility'],
    description: str(r.description),
    callable,
  };
}

/**
 * Reads tables, views, columns, keys, functions, enums and composite types from pg_catalog,
 * with an empty search_path, as PostgREST does: type names and defaults come out qualified
 * (`public.user_status`, `nextval('public.t_id_seq'::regclass)`) unless in pg_catalog.
 */
export function loadSchemaCache(db: Database, schemas: string[]): Promise<SchemaCache> {
  return db.transaction(
    async (tx) => {
      await tx.query(`select pg_catalog.set_config('search_path', '', true)`);
      return readCatalog(tx, schemas);
    },
    { readOnly: true },
  );
}

async function readCatalog(db: Queryable, schemas: string[]): Promise<SchemaCache> {
  const p = [schemas];
  const tablesQ = await db.query(TABLES, p);
  const columnsQ = await db.query(COLUMNS, p);
  const consQ = await db.query(CONSTRAINTS, p);
  const funcsQ = await db.query(FUNCTIONS, p);
  const enumsQ = await db.query(ENUMS, p);
  const compQ = await db.query(COMPOSITES, p);
  const rowTypesQ = await db.query(RESULT_ROW_TYPES, p);
  const computedQ = await db.query(COMPUTED, p);
  const tables = new Map<string, Table>();
  for (const r of tablesQ.rows) {
    tables.set(qualified(String(r.schema), String(r.name)), {
      schema: String(r.schema),
      name: String(r.name),
      kind: String(r.kind),
      insertable: r.insertable === true,
      updatable: r.updatable === true,
      deletable: r.deletable === true,
      description: str(r.description),
      columns: [],
      columnMap: new Map(),
      primaryKey: [],
      uniques: [],
    });
  }
  for (const r of columnsQ.rows) {
    const table = tables.get(qualified(String(r.schema), String(r.table)));
    if (!table) continue;
    const column: Column = {
      name: String(r.name),
      type: String(r.type),
      baseType: String(r.base_type),
      udt: String(r.udt),
      typtype: String(r.typtype),
      category: String(r.category),
      nullable: r.nullable === true,
      default: str(r.default),
      identity: String(r.identity ?? ''),
      generated: String(r.generated ?? ''),
      description: str(r.description),
      enumValues: (r.enum_values as string[] | null) ?? null,
    };
    table.columns.push(column);
    table.columnMap.set(column.name, column);
  }
  const foreignKeys: ForeignKey[] = [];
  for (const r of consQ.rows) {
    const table = tables.get(qualified(String(r.schema), String(r.table)));
    const columns = (r.columns as string[] | null) ?? [];
    if (r.type === 'p' && table) table.primaryKey = columns;
    if ((r.type === 'p' || r.type === 'u') && table) table.uniques.push(columns);
    if (r.type === 'f' && r.ref_table) {
      foreignKeys.push({
        name: String(r.name),
        schema: String(r.schema),
        table: String(r.table),
        columns,
        refSchema: String(r.ref_schema),
        refTable: String(r.ref_table),
        refColumns: (r.ref_columns as string[] | null) ?? [],
      });
    }
  }
  addViewKeys((await db.query(VIEW_SOURCES, p)).rows, tables, foreignKeys);
  const functions = new Map<string, DbFunction[]>();
  for (const r of funcsQ.rows) {
    const fn = toFunction(r);
    const key = qualified(fn.schema, fn.name);
    functions.set(key, [...(functions.get(key) ?? []), fn]);
  }
  const enums: EnumType[] = enumsQ.rows.map((r) => ({
    schema: String(r.schema),
    name: String(r.name),
    values: r.values as string[],
  }));
  const toComposite = (r: R): CompositeType => ({
    schema: String(r.schema),
    name: String(r.name),
    attributes: r.attributes as { name: string; type: string }[],
  });
  const composites = compQ.rows.map(toComposite);
  const resultRowTypes = rowTypesQ.rows.map(toComposite);
  const computed: ComputedFunction[] = computedQ.rows.map((r) => ({
    schema: String(r.schema),
    name: String(r.name),
    argSchema: String(r.arg_schema),
    argTable: String(r.arg_table),
    returnType: String(r.return_type),
    returnTable: r.return_table
      ? { schema: String(r.return_schema), name: String(r.return_table) }
      : null,
    retset: r.retset === true,
    rows: Number(r.rows),
  }));
  return {
    schemas,
    tables,
    foreignKeys,
    functions,
    computed,
    enums,
    composites,
    resultRowTypes,
  };
}
