import type { Transaction } from '../db/index';
import { quoteIdent, quoteLiteral } from '../db/quote';
import { appSchemaCondition, PLATFORM_DATA, PLATFORM_SCHEMAS } from './scope';

/** Platform tables emptied besides the project rows: ephemeral state of the old database. */
const EPHEMERAL = [
  'storage.retired_versions',
  'realtime.messages',
  'realtime.captured_rows',
  'realtime.cluster_spill',
  '_auth.rate_limits',
  '_auth.emulator_codes',
];

/**
 * Brings a database back to a fresh platform inside `tx`: drops every app schema (public is
 * made again), the project's policies and publication entries on platform tables, empties
 * the platform's project tables, and re-applies the platform scripts (grants and default
 * privileges of the new public schema). Committed with the transaction, or not at all.
 */
export async function wipeDatabase(tx: Transaction, platformSql: readonly string[]): Promise<void> {
  // An extension whose script made its schema (pg_cron's `cron`, pg_net's `net`) goes first:
  // Postgres refuses to drop a schema an extension owns.
  const owners = await tx.query<{ name: string }>(
    `select distinct e.extname as name
       from pg_depend d join pg_extension e on e.oid = d.refobjid
       join pg_namespace n on n.oid = d.objid
      where d.classid = 'pg_namespace'::regclass and d.refclassid = 'pg_extension'::regclass
        and d.deptype = 'e' and ${appSchemaCondition('n.nspname')}`,
  );
  for (const { name } of owners.rows) await tx.exec(`drop extension ${quoteIdent(name)} cascade`);
  const schemas = await tx.query<{ name: string }>(
    `select n.nspname as name from pg_namespace n where ${appSchemaCondition('n.nspname')}`,
  );
  for (const { name } of schemas.rows)
    await tx.exec(`drop schema if exists ${quoteIdent(name)} cascade`);
  await tx.exec('create schema public');

  const platform = PLATFORM_SCHEMAS.map(quoteLiteral).join(', ');
  const policies = await tx.query<{ name: string; tbl: string }>(
    `select p.polname as name, quote_ident(n.nspname) || '.' || quote_ident(c.relname) as tbl
       from pg_policy p join pg_class c on c.oid = p.polrelid join pg_namespace n on n.oid = c.relnamespace
      where n.nspname in (${platform})`,
  );
  for (const p of policies.rows) await tx.exec(`drop policy ${quoteIdent(p.name)} on ${p.tbl}`);
  const published = await tx.query<{ pub: string; tbl: string }>(
    `select p.pubname as pub, quote_ident(n.nspname) || '.' || quote_ident(c.relname) as tbl
       from pg_publication_rel r join pg_publication p on p.oid = r.prpubid
       join pg_class c on c.oid = r.prrelid join pg_namespace n on n.oid = c.relnamespace`,
  );
  for (const p of published.rows)
    await tx.exec(`alter publication ${quoteIdent(p.pub)} drop table ${p.tbl}`);
  const pubs = await tx.query<{ name: string }>(
    `select pubname as name from pg_publication where pubname <> 'supabase_realtime'`,
  );
  for (const p of pubs.rows) await tx.exec(`drop publication ${quoteIdent(p.name)}`);

  const tables = await tx.query<{ tbl: string }>(
    `select quote_ident(n.nspname) || '.' || quote_ident(c.relname) as tbl
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where c.relkind = 'r' and (n.nspname in (${PLATFORM_DATA.schemas.map(quoteLiteral).join(', ')})
         or (n.nspname || '.' || c.relname) in (${[...PLATFORM_DATA.tables, ...EPHEMERAL].map(quoteLiteral).join(', ')}))`,
  );
  if (tables.rows.length > 0) {
    await tx.exec(`truncate ${tables.rows.map((t) => t.tbl).join(', ')} restart identity cascade`);
  }
  for (const script of platformSql) await tx.exec(script);
}
