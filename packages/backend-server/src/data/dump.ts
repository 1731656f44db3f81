import type { Database, Transaction } from '../db/index';
import { quoteIdent, quoteQualified } from '../db/quote';
import {
  type DataTable,
  type PreObject,
  readDataTables,
  readDependencies,
  readPreData,
  readSchemas,
  readSequenceValues,
} from './catalog';
import { readPostData } from './post-data';

/** First line of every dump this server writes; the importer recognises it. */
export const DUMP_HEADER = '-- backend-server dump, format 1';
/** Last line of a complete dump (a file cut short lacks it). */
export const DUMP_END = '-- backend-server dump complete';

export interface DumpOptions {
  /** Tables, types, functions, views, keys, triggers, policies, privileges. Default true. */
  schema?: boolean;
  /** Rows (COPY) and sequence values. Default true. */
  data?: boolean;
  /** Only these app schemas (default: every schema that is not Postgres's or the platform's). */
  schemas?: readonly string[] | null;
  /**
   * Runs first inside the dump's snapshot (the archive reads there which object versions
   * it holds, so its files match the rows, and copies them while the dump goes on).
   */
  onSnapshot?: (tx: Transaction) => Promise<void>;
}

export interface Dump {
  /** The SQL text, in pieces (table data as COPY produced it). */
  chunks: Uint8Array[];
  bytes: number;
  tables: number;
  rows: number;
}

const encoder = new TextEncoder();

/**
 * Orders pre-data objects so each comes after what it depends on (Kahn's algorithm; ties
 * and cycles broken by kind, then by creation order).
 */
export function orderObjects(objects: PreObject[], edges: [string, string][]): PreObject[] {
  const byKey = new Map(objects.map((o) => [o.key, o]));
  const waiting = new Map<string, Set<string>>(objects.map((o) => [o.key, new Set<string>()]));
  const dependents = new Map<string, string[]>();
  for (const [from, to] of edges) {
    waiting.get(from)?.add(to);
    dependents.set(to, [...(dependents.get(to) ?? []), from]);
  }
  const before = (a: PreObject, b: PreObject) => a.rank - b.rank || a.oid - b.oid;
  const out: PreObject[] = [];
  const left = new Set(byKey.keys());
  while (left.size > 0) {
    let next: PreObject | null = null;
    for (const key of left) {
      const o = byKey.get(key) as PreObject;
      if ((waiting.get(key)?.size ?? 0) === 0 && (!next || before(o, next) < 0)) next = o;
    }
    if (!next) {
      // A cycle: take the earliest object and let the others follow.
      next = [...left].map((k) => byKey.get(k) as PreObject).sort(before)[0] as PreObject;
    }
    out.push(next);
    left.delete(next.key);
    for (const d of dependents.get(next.key) ?? []) waiting.get(d)?.delete(next.key);
  }
  return out;
}

const countLines = (bytes: Uint8Array) => {
  let n = 0;
  for (let i = 0; i < bytes.length; i += 1) if (bytes[i] === 10) n += 1;
  return n;
};

/** The COPY target of a table: its name and columns (generated ones left out). */
export const copyTarget = (t: DataTable) =>
  `${quoteQualified(t.schema, t.name)} (${t.columns.map(quoteIdent).join(', ')})`;

/**
 * Dumps the project's part of a database as one SQL script, in a single consistent
 * snapshot: the app's schemas (structure), and the rows of the app's tables and of the
 * platform tables that hold the project's data (users, buckets, objects, applied
 * migrations). Restorable with `psql -f` into a backend-server database (platform schemas
 * present) and with `backend-server import`.
 */
export async function dumpDatabase(db: Database, options: DumpOptions = {}): Promise<Dump> {
  const withSchema = options.schema ?? true;
  const withData = options.data ?? true;
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  let rows = 0;
  let tables = 0;
  const text = (s: string) => {
    const b = encoder.encode(s);
    chunks.push(b);
    bytes += b.byteLength;
  };
  await db.transaction(async (tx: Transaction) => {
    await tx.query('set transaction isolation level repeatable read, read only');
    await tx.query(`select set_config('search_path', 'pg_catalog', true)`);
    await options.onSnapshot?.(tx);
    const schemas = await readSchemas(tx, options.schemas ?? null);
    const what = withSchema && withData ? 'schema and data' : withSchema ? 'schema' : 'data';
    text(
      `${DUMP_HEADER}: ${what} of ${schemas.length > 0 ? schemas.map(quoteIdent).join(', ') : 'no schema'}${
        withData ? ', with auth and storage rows' : ''
      }.\n-- Restore into a backend-server database with \`backend-server import FILE\` or \`psql -f FILE\`.\n\n` +
        'set check_function_bodies = false;\nset client_min_messages = warning;\n\n',
    );
    if (withSchema) {
      const objects = await readPreData(tx, schemas);
      const edges = await readDependencies(tx, new Set(objects.map((o) => o.key)));
      for (const o of orderObjects(objects, edges)) text(`${o.sql}\n\n`);
    }
    if (withData) {
      const list = await readDataTables(tx, schemas, true);
      // Rows go in as they are: no trigger fires and no foreign key is checked while loading.
      text('set session_replication_role = replica;\n\n');
      for (const table of list) {
        const target = copyTarget(table);
        const data = await tx.copyOut(target);
        if (data.byteLength === 0) continue;
        tables += 1;
        rows += countLines(data);
        text(`COPY ${target} FROM stdin;\n`);
        chunks.push(data);
        bytes += data.byteLength;
        text('\\.\n\n');
      }
      text('set session_replication_role = origin;\n\n');
      const values = await readSequenceValues(tx, schemas, true);
      if (values.length > 0) text(`${values.join('\n')}\n\n`);
    }
    if (withSchema) {
      const post = await readPostData(tx, schemas);
      if (post.length > 0) text(`${post.join('\n')}\n\n`);
    }
    text(`${DUMP_END}\n`);
  });
  return { chunks, bytes, tables, rows };
}
