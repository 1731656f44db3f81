/**
 * Which parts of a database are the project's (dumped, exported, wiped on reset) and which
 * are the platform's (made by the server itself, the same in every database).
 */

import { quoteLiteral } from '../db/quote';

/** Schemas the server creates and maintains; their structure is never dumped. */
export const PLATFORM_SCHEMAS = [
  'auth',
  'storage',
  'realtime',
  'supabase_migrations',
  'extensions',
  'graphql_public',
  'supabase_functions',
  // Private: auth's rate-limit counters and signing keys; the console's secret and log.
  '_auth',
  '_console',
] as const;

/**
 * Platform tables whose rows belong to the project (users, buckets, objects, which
 * migrations and seed ran): their data is dumped and exported. Every table of `auth` is
 * included; ephemeral tables (realtime messages and captured changes, retired object
 * versions, the platform version) are not.
 */
export const PLATFORM_DATA = {
  schemas: ['auth'],
  tables: [
    'storage.buckets',
    'storage.objects',
    'supabase_migrations.schema_migrations',
    'supabase_migrations.seeds',
  ],
} as const;

/** SQL condition: `nsp` (a schema name expression) is neither Postgres's nor the platform's. */
export function appSchemaCondition(nsp: string): string {
  const platform = PLATFORM_SCHEMAS.map(quoteLiteral).join(', ');
  return `(${nsp} not in ('pg_catalog', 'information_schema', 'pg_toast', ${platform}) and ${nsp} not like 'pg\\_%')`;
}
