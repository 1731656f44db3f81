/**
 * What a dump creates after the rows are loaded: sequence ownership, keys, indexes, foreign
 * keys, triggers, row level security and policies, publications, privileges, comments.
 * Also the project's additions to platform tables (triggers calling the app's functions,
 * policies on storage.objects and realtime.messages).
 */
import type { Queryable } from '../db/index';
import { quoteIdent, quoteLiteral } from '../db/quote';
import { PLATFORM_SCHEMAS } from './scope';

const PLATFORM = `(${PLATFORM_SCHEMAS.map(quoteLiteral).join(', ')})`;
const COMMANDS: Record<string, string> = {
  r: 'select',
  a: 'insert',
  w: 'update',
  d: 'delete',
  '*': 'all',
};

/** `c` is not a table an extension created (its extension creates its keys and indexes). */
const NOT_MEMBER = `not exists (select 1 from pg_depend e where e.classid = 'pg_class'::regclass
  and e.objid = c.oid and e.deptype = 'e')`;

/** Roles a fresh object grants to through the platform's default privileges. */
const API_ROLES = ['anon', 'authenticated', 'service_role'];

export async function readPostData(q: Queryable, schemas: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  const inSchemas = `n.nspname = any($1::text[])`;
  const args = [schemas];

  const owned = await q.query<{ seq: string; tbl: string; col: string }>(
    `select quote_ident(n.nspname) || '.' || quote_ident(c.relname) as seq,
            quote_ident(tn.nspname) || '.' || quote_ident(t.relname) as tbl, a.attname as col
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
       join pg_depend d on d.classid = 'pg_class'::regclass and d.objid = c.oid and d.deptype = 'a'
       join pg_class t on t.oid = d.refobjid join pg_namespace tn on tn.oid = t.relnamespace
       join pg_attribute a on a.attrelid = t.oid and a.attnum = d.refobjsubid
      where c.relkind = 'S' and ${inSchemas}`,
    args,
  );
  for (const o of owned.rows)
    out.push(`alter sequence ${o.seq} owned by ${o.tbl}.${quoteIdent(o.col)};`);

  // Keys first (foreign keys need the keys they reference), then the other indexes.
  const constraints = await q.query<{ tbl: string; name: string; def: string; type: string }>(
    `select quote_ident(n.nspname) || '.' || quote_ident(c.relname) as tbl, k.conname as name,
            pg_get_constraintdef(k.oid) as def, k.contype::text as type
       from pg_constraint k join pg_class c on c.oid = k.conrelid join pg_namespace n on n.oid = c.relnamespace
      where k.contype in ('p', 'u', 'x', 'f') and k.conislocal and k.conparentid = 0 and ${inSchemas}
        and ${NOT_MEMBER}
      order by case k.contype when 'f' then 1 else 0 end, n.nspname, c.relname, k.conname`,
    args,
  );
  const keys = constraints.rows.filter((k) => k.type !== 'f');
  for (const k of keys)
    out.push(`alter table only ${k.tbl} add constraint ${quoteIdent(k.name)} ${k.def};`);
  const indexes = await q.query<{ def: string }>(
    `select pg_get_indexdef(i.indexrelid) as def
       from pg_index i join pg_class c on c.oid = i.indrelid join pg_namespace n on n.oid = c.relnamespace
      where ${inSchemas} and c.relkind in ('r', 'p', 'm') and ${NOT_MEMBER}
        and not exists (select 1 from pg_constraint k where k.conindid = i.indexrelid and k.contype in ('p', 'u', 'x'))
        and not exists (select 1 from pg_inherits h where h.inhrelid = i.indexrelid)
      order by n.nspname, c.relname, i.indexrelid`,
    args,
  );
  for (const i of indexes.rows) out.push(`${i.def};`);
  for (const k of constraints.rows.filter((c) => c.type === 'f')) {
    out.push(`alter table only ${k.tbl} add constraint ${quoteIdent(k.name)} ${k.def};`);
  }

  // Triggers (not those of an extension's own tables, which its script makes): on the app's
  // tables (not the realtime capture triggers the server keeps in step itself; database
  // webhooks, calling supabase_functions.http_request, are the app's), and on platform tables
  // when they call the app's functions.
  const triggers = await q.query<{ def: string; tbl: string; name: string; enabled: string }>(
    `select pg_get_triggerdef(t.oid) as def, quote_ident(n.nspname) || '.' || quote_ident(c.relname) as tbl,
            t.tgname as name, t.tgenabled::text as enabled
       from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_namespace n on n.oid = c.relnamespace
       join pg_proc p on p.oid = t.tgfoid join pg_namespace pn on pn.oid = p.pronamespace
      where not t.tgisinternal and t.tgparentid = 0 and ${NOT_MEMBER}
        and ((${inSchemas} and (pn.nspname not in ${PLATFORM} or pn.nspname = 'supabase_functions'))
          or (n.nspname in ${PLATFORM} and pn.nspname = any($1::text[])))
      order by n.nspname, c.relname, t.tgname`,
    args,
  );
  for (const t of triggers.rows) {
    out.push(`${t.def};`);
    if (t.enabled === 'D') out.push(`alter table ${t.tbl} disable trigger ${quoteIdent(t.name)};`);
  }

  const rls = await q.query<{ tbl: string; force: boolean }>(
    `select quote_ident(n.nspname) || '.' || quote_ident(c.relname) as tbl, c.relforcerowsecurity as force
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where c.relrowsecurity and c.relkind in ('r', 'p') and ${inSchemas} and ${NOT_MEMBER}
      order by 1`,
    args,
  );
  for (const r of rls.rows) {
    out.push(`alter table ${r.tbl} enable row level security;`);
    if (r.force) out.push(`alter table ${r.tbl} force row level security;`);
  }

  // Policies of the app's tables and every policy on platform tables (the platform defines
  // none: they are the project's, e.g. who may read storage.objects).
  const policies = await q.query<{
    tbl: string;
    name: string;
    cmd: string;
    permissive: boolean;
    roles: string[];
    qual: string | null;
    check: string | null;
  }>(
    `select quote_ident(n.nspname) || '.' || quote_ident(c.relname) as tbl, p.polname as name,
            p.polcmd::text as cmd, p.polpermissive as permissive,
            (select coalesce(json_agg(case when r = 0 then 'public' else quote_ident(pg_get_userbyid(r)) end), '[]'::json)
               from unnest(p.polroles) r) as roles,
            pg_get_expr(p.polqual, p.polrelid) as qual, pg_get_expr(p.polwithcheck, p.polrelid) as check
       from pg_policy p join pg_class c on c.oid = p.polrelid join pg_namespace n on n.oid = c.relnamespace
      where (${inSchemas} or n.nspname in ${PLATFORM}) and ${NOT_MEMBER}
      order by 1, 2`,
    args,
  );
  for (const p of policies.rows) {
    out.push(
      `create policy ${quoteIdent(p.name)} on ${p.tbl} as ${p.permissive ? 'permissive' : 'restrictive'} for ${
        COMMANDS[p.cmd] ?? 'all'
      } to ${p.roles.join(', ') || 'public'}${p.qual !== null ? ` using (${p.qual})` : ''}${
        p.check !== null ? ` with check (${p.check})` : ''
      };`,
    );
  }

  const pubs = await q.query<{ pub: string; tbl: string; all: boolean }>(
    `select p.pubname as pub, quote_ident(n.nspname) || '.' || quote_ident(c.relname) as tbl, p.puballtables as all
       from pg_publication_rel r join pg_publication p on p.oid = r.prpubid
       join pg_class c on c.oid = r.prrelid join pg_namespace n on n.oid = c.relnamespace
      where (${inSchemas} or n.nspname in ${PLATFORM}) and ${NOT_MEMBER}
      order by 1, 2`,
    args,
  );
  const created = new Set<string>(['supabase_realtime']);
  for (const p of pubs.rows) {
    if (!created.has(p.pub)) {
      created.add(p.pub);
      out.push(
        `do $$ begin if not exists (select 1 from pg_publication where pubname = ${quoteLiteral(p.pub)}) then create publication ${quoteIdent(p.pub)}; end if; end $$;`,
      );
    }
    out.push(`alter publication ${quoteIdent(p.pub)} add table ${p.tbl};`);
  }

  out.push(...(await readPrivileges(q, schemas)));
  out.push(...(await readComments(q, schemas)));

  const matviews = await q.query<{ name: string }>(
    `select quote_ident(n.nspname) || '.' || quote_ident(c.relname) as name
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where c.relkind = 'm' and c.relispopulated and ${inSchemas} order by c.oid`,
    args,
  );
  for (const m of matviews.rows) out.push(`refresh materialized view ${m.name};`);
  return out;
}

/** Grants on the app's schemas, tables, views, sequences and functions, exactly as they are. */
async function readPrivileges(q: Queryable, schemas: readonly string[]): Promise<string[]> {
  const { rows } = await q.query<{
    kind: string;
    target: string;
    owner: string;
    grants: { grantee: string; privilege: string }[];
  }>(
    `with objects(kind, target, owner, acl) as (
       select case when c.relkind = 'S' then 'sequence' else 'table' end,
              quote_ident(n.nspname) || '.' || quote_ident(c.relname), c.relowner, c.relacl
         from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where c.relkind in ('r', 'p', 'v', 'm', 'S', 'f') and c.relacl is not null and n.nspname = any($1::text[])
       union all
       select case when p.prokind = 'p' then 'procedure' else 'function' end,
              quote_ident(n.nspname) || '.' || quote_ident(p.proname) || '(' || pg_get_function_identity_arguments(p.oid) || ')',
              p.proowner, p.proacl
         from pg_proc p join pg_namespace n on n.oid = p.pronamespace
        where p.prokind in ('f', 'p') and p.proacl is not null and n.nspname = any($1::text[])
       union all
       select 'schema', quote_ident(n.nspname), n.nspowner, n.nspacl from pg_namespace n
        where n.nspacl is not null and n.nspname = any($1::text[]) and n.nspname <> 'public'
     )
     select o.kind, o.target, pg_get_userbyid(o.owner) as owner,
            (select coalesce(json_agg(json_build_object(
                      'grantee', case when a.grantee = 0 then 'public' else quote_ident(pg_get_userbyid(a.grantee)) end,
                      'privilege', a.privilege_type) order by a.grantee, a.privilege_type), '[]'::json)
               from aclexplode(o.acl) a where a.grantee <> o.owner) as grants
       from objects o order by 1, 2`,
    [schemas],
  );
  const out: string[] = [];
  for (const r of rows) {
    out.push(`revoke all on ${r.kind} ${r.target} from public, ${API_ROLES.join(', ')};`);
    const byGrantee = new Map<string, string[]>();
    for (const g of r.grants)
      byGrantee.set(g.grantee, [...(byGrantee.get(g.grantee) ?? []), g.privilege]);
    for (const [grantee, privileges] of byGrantee) {
      out.push(
        `grant ${privilegeList(r.kind, privileges)} on ${r.kind} ${r.target} to ${grantee};`,
      );
    }
  }
  return out;
}

/** Every privilege a table has on every supported Postgres (MAINTAIN exists from 17 on). */
const TABLE_PRIVILEGES = [
  'DELETE',
  'INSERT',
  'REFERENCES',
  'SELECT',
  'TRIGGER',
  'TRUNCATE',
  'UPDATE',
];

/**
 * The privileges to grant, portable across Postgres versions: `all` when a table has them
 * all, and never `maintain` by name (older servers do not know it).
 */
function privilegeList(kind: string, privileges: string[]): string {
  if (kind === 'table' && TABLE_PRIVILEGES.every((p) => privileges.includes(p))) return 'all';
  return privileges
    .filter((p) => p !== 'MAINTAIN')
    .join(', ')
    .toLowerCase();
}

async function readComments(q: Queryable, schemas: readonly string[]): Promise<string[]> {
  const { rows } = await q.query<{ target: string; text: string }>(
    `select case c.relkind when 'v' then 'view ' when 'm' then 'materialized view ' else 'table ' end
              || quote_ident(n.nspname) || '.' || quote_ident(c.relname) as target, d.description as text
       from pg_description d join pg_class c on c.oid = d.objoid and d.classoid = 'pg_class'::regclass and d.objsubid = 0
       join pg_namespace n on n.oid = c.relnamespace where n.nspname = any($1::text[]) and c.relkind in ('r', 'p', 'v', 'm')
     union all
     select 'column ' || quote_ident(n.nspname) || '.' || quote_ident(c.relname) || '.' || quote_ident(a.attname), d.description
       from pg_description d join pg_class c on c.oid = d.objoid and d.classoid = 'pg_class'::regclass
       join pg_attribute a on a.attrelid = c.oid and a.attnum = d.objsubid
       join pg_namespace n on n.oid = c.relnamespace where n.nspname = any($1::text[]) and d.objsubid > 0
     union all
     select 'function ' || quote_ident(n.nspname) || '.' || quote_ident(p.proname) || '(' || pg_get_function_identity_arguments(p.oid) || ')', d.description
       from pg_description d join pg_proc p on p.oid = d.objoid and d.classoid = 'pg_proc'::regclass
       join pg_namespace n on n.oid = p.pronamespace where n.nspname = any($1::text[])
     order by 1`,
    [schemas],
  );
  return rows.map((r) => `comment on ${r.target} is ${quoteLiteral(r.text)};`);
}
