/**
 * The `pgmq_public` schema hosted projects get from the "Expose Queues via PostgREST"
 * setting: security-invoker wrappers of pgmq's functions under the names and argument
 * names supabase-js callers use, with the grants that setting makes. The local tooling's
 * way to turn it on is listing `pgmq_public` in the exposed schemas (`[api] schemas`), so
 * the server creates it then, once pgmq is installed and unless a migration made the schema
 * itself. Access to a queue stays the table's: the API roles need privileges on
 * `pgmq.q_<name>` (and RLS policies when it has row level security), as hosted.
 */
import type { Database } from '../types';

export const PGMQ_PUBLIC_SQL = /* sql */ `
create schema pgmq_public;
grant usage on schema pgmq_public to anon, authenticated, service_role;

create function pgmq_public.pop(queue_name text) returns setof pgmq.message_record
language plpgsql set search_path = '' as $fn$
begin
  return query select * from pgmq.pop(queue_name := queue_name);
end
$fn$;
comment on function pgmq_public.pop(text) is
  'Retrieves and locks the next message from the specified queue.';

create function pgmq_public.send(queue_name text, message jsonb, sleep_seconds integer default 0)
returns setof bigint
language plpgsql set search_path = '' as $fn$
begin
  return query select * from pgmq.send(queue_name := queue_name, msg := message, delay := sleep_seconds);
end
$fn$;
comment on function pgmq_public.send(text, jsonb, integer) is
  'Sends a message to the specified queue, optionally delaying its availability by a number of seconds.';

create function pgmq_public.send_batch(queue_name text, messages jsonb[], sleep_seconds integer default 0)
returns setof bigint
language plpgsql set search_path = '' as $fn$
begin
  return query select * from pgmq.send_batch(queue_name := queue_name, msgs := messages, delay := sleep_seconds);
end
$fn$;
comment on function pgmq_public.send_batch(text, jsonb[], integer) is
  'Sends a batch of messages to the specified queue, optionally delaying their availability by a number of seconds.';

create function pgmq_public.archive(queue_name text, message_id bigint) returns boolean
language plpgsql set search_path = '' as $fn$
begin
  return pgmq.archive(queue_name := queue_name, msg_id := message_id);
end
$fn$;
comment on function pgmq_public.archive(text, bigint) is
  'Archives a message by moving it from the queue to a permanent archive.';

create function pgmq_public.delete(queue_name text, message_id bigint) returns boolean
language plpgsql set search_path = '' as $fn$
begin
  return pgmq.delete(queue_name := queue_name, msg_id := message_id);
end
$fn$;
comment on function pgmq_public.delete(text, bigint) is
  'Permanently deletes a message from the specified queue.';

create function pgmq_public.read(queue_name text, sleep_seconds integer, n integer)
returns setof pgmq.message_record
language plpgsql set search_path = '' as $fn$
begin
  return query select * from pgmq.read(queue_name := queue_name, vt := sleep_seconds, qty := n);
end
$fn$;
comment on function pgmq_public.read(text, integer, integer) is
  'Reads up to "n" messages from the specified queue with an optional "sleep_seconds" (visibility timeout).';

grant execute on all functions in schema pgmq_public to anon, authenticated, service_role;

grant usage on schema pgmq to anon, authenticated, service_role;
grant all privileges on all tables in schema pgmq to service_role;
grant all privileges on all sequences in schema pgmq to service_role;
alter default privileges in schema pgmq grant all privileges on tables to service_role;
alter default privileges in schema pgmq grant all privileges on sequences to service_role;
`;

/**
 * Creates `pgmq_public` when it is exposed, pgmq is installed and the schema does not exist
 * yet. Returns whether it did.
 */
export async function exposeQueues(db: Database, schemas: readonly string[]): Promise<boolean> {
  if (!schemas.includes('pgmq_public')) return false;
  const { rows } = await db.query<{ pgmq: boolean; schema: boolean }>(
    `select exists (select 1 from pg_extension where extname = 'pgmq') as pgmq,
       exists (select 1 from pg_namespace where nspname = 'pgmq_public') as schema`,
  );
  if (!rows[0]?.pgmq || rows[0].schema) return false;
  await db.transaction((tx) => tx.exec(PGMQ_PUBLIC_SQL));
  return true;
}
