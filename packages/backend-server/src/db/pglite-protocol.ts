import { type PGlite, protocol, types } from '@electric-sql/pglite';
import type { QueryResult, Row, Settled, Statement } from './types';
import { F, skipped, textParams, Writer } from './wire';

type Message = { name: string } & Record<string, unknown>;
type Field = { name: string; dataTypeID: number };

// Commands whose tag ends in the rows they changed (as PGlite counts affectedRows).
const COUNTED = new Set(['INSERT', 'UPDATE', 'DELETE', 'COPY', 'MERGE']);
// Commands that may change what a kept statement returns (DO and CALL may run DDL).
const SCHEMA = new Set([
  'CREATE',
  'ALTER',
  'DROP',
  'DO',
  'CALL',
  'IMPORT',
  'DISCARD',
  'DEALLOCATE',
]);

/** The results up to the first error, from one exchange's backend messages. */
function collect(pglite: PGlite, messages: Message[]) {
  const done: QueryResult[] = [];
  let fields: Field[] = [];
  let rows: Row[] = [];
  let error: unknown = null;
  let status = 'I';
  let schemaChanged = false;
  for (const msg of messages) {
    switch (msg.name) {
      case 'rowDescription':
        fields = (msg.fields as Field[]).map((f) => ({ name: f.name, dataTypeID: f.dataTypeID }));
        break;
      case 'dataRow': {
        const row: Row = {};
        const values = msg.fields as (string | null)[];
        for (let i = 0; i < values.length; i++) {
          const f = fields[i] as Field;
          const x = values[i] ?? null;
          row[f.name] = x === null ? null : types.parseType(x, f.dataTypeID, pglite.parsers);
        }
        rows.push(row);
        break;
      }
      case 'commandComplete': {
        const parts = String(msg.text ?? '').split(' ');
        const n = Number(parts[parts.length - 1]);
        const affectedRows = COUNTED.has(parts[0] ?? '') && Number.isFinite(n) ? n : 0;
        if (SCHEMA.has(parts[0] ?? '')) schemaChanged = true;
        done.push({ rows, fields, affectedRows });
        fields = [];
        rows = [];
        break;
      }
      case 'error':
        error = msg;
        break;
      case 'readyForQuery':
        status = String(msg.status);
        break;
    }
  }
  return { done, error, status, schemaChanged };
}

/**
 * Named statements of one PGlite by SQL text (the most recent `max`): parsed once, then
 * only bound and executed. Postgres re-plans them itself after DDL or when RLS depends on
 * the role. Names no longer kept are closed at the start of the next exchange. After DDL
 * all are forgotten, so a statement whose result columns changed is parsed again instead of
 * failing with `cached plan must not change result type`.
 */
export class StatementNames {
  private readonly names = new Map<string, string>();
  private closing: string[] = [];
  private counter = 0;
  constructor(private readonly max = 256) {}

  lookup(text: string): { name: string; fresh: boolean } {
    const name = this.names.get(text);
    if (name === undefined) return { name: `pgs_${++this.counter}`, fresh: true };
    this.names.delete(text);
    this.names.set(text, name);
    return { name, fresh: false };
  }

  keep(text: string, name: string) {
    this.names.set(text, name);
    if (this.names.size <= this.max) return;
    const [oldest, oldName] = this.names.entries().next().value as [string, string];
    this.names.delete(oldest);
    this.closing.push(oldName);
  }

  drop(text: string, name: string) {
    if (this.names.get(text) === name) this.names.delete(text);
    this.closing.push(name);
  }

  /** Forgets every statement (after DDL, or a script that may hold some). */
  forgetAll() {
    for (const name of this.names.values()) this.closing.push(name);
    this.names.clear();
  }

  get size(): number {
    return this.names.size;
  }

  takeClosing(): string[] {
    return this.closing.splice(0);
  }
}

/** A kept statement that no longer exists, or whose result type changed under it. */
function isStale(error: unknown): boolean {
  const e = error as { code?: string; message?: string } | null;
  return (
    e?.code === '26000' ||
    (e?.code === '0A000' && e.message === 'cached plan must not change result type')
  );
}

export interface ExchangeOptions {
  /** Statements without parameters around the others, e.g. BEGIN READ ONLY / COMMIT. */
  before?: string;
  after?: string;
  /** Inside a transaction the caller holds (only the query lock is taken then). */
  inTransaction?: boolean;
  /** Use (and keep) named statements, by SQL text. */
  names?: StatementNames;
}

/**
 * Runs statements as one extended-protocol exchange with the WASM backend: parse (once per
 * kept statement), bind, describe and execute per statement, then one Sync, in a single call
 * instead of PGlite's six per statement. Outside a transaction they form one implicit
 * transaction (a failure rolls all back), and a kept statement found stale (its result
 * columns changed, or it was deallocated) is parsed again and the exchange run once more:
 * nothing of it was committed. Resolves to each statement's result or error, in order, or
 * to null when a parameter is not plain text, number or boolean (PGlite's typed serializers
 * needed).
 */
export async function exchange(
  pglite: PGlite,
  statements: readonly Statement[],
  options: ExchangeOptions = {},
): Promise<Settled<QueryResult>[] | null> {
  const values = textParams(statements);
  if (!values) return null;
  const first = await exchangeOnce(pglite, statements, values, options);
  if (!first.stale || options.inTransaction) return first.settled;
  return (await exchangeOnce(pglite, statements, values, options)).settled;
}

// One writer for every exchange: messages are written and taken without awaiting between.
const writer = new Writer();
const STATEMENT = Buffer.from('S');
const PORTAL = Buffer.from('P');

async function exchangeOnce(
  pglite: PGlite,
  statements: readonly Statement[],
  values: (string | null)[][],
  options: ExchangeOptions,
): Promise<{ settled: Settled<QueryResult>[]; stale: boolean }> {
  const w = writer;
  const simple = (text: string) => {
    w.begin(F.parse).cstr('').cstr(text).int16(0).end();
    w.begin(F.bind).cstr('').cstr('').int16(0).int16(0).int16(0).end();
    w.begin(F.execute).cstr('').int32(0).end();
  };
  const names = options.names;
  for (const name of names?.takeClosing() ?? []) w.begin(F.close).bytes(STATEMENT).cstr(name).end();
  if (options.before) simple(options.before);
  const named = statements.map((st, i) => {
    const use = names?.lookup(st.text) ?? { name: '', fresh: true };
    if (use.fresh) w.begin(F.parse).cstr(use.name).cstr(st.text).int16(0).end();
    const params = values[i] as (string | null)[];
    w.begin(F.bind).cstr('').cstr(use.name).int16(0).int16(params.length);
    for (const v of params) w.value(v);
    w.int16(0).end();
    w.begin(F.describe).bytes(PORTAL).cstr('').end();
    w.begin(F.execute).cstr('').int32(0).end();
    return use;
  });
  if (options.after) simple(options.after);
  const message = w.begin(F.sync).end().take();
  const run = async () => {
    const messages = (await pglite.execProtocolStream(message, {
      throwOnError: false,
      syncToFs: false,
    })) as unknown as Message[];
    const outcome = collect(pglite, messages);
    // A failure after an explicit BEGIN leaves the block aborted up to Sync: end it.
    if (!options.inTransaction && outcome.status !== 'I')
      await pglite.execProtocolStream(protocol.serialize.query('rollback'));
    return outcome;
  };
  // Outside a transaction: the transaction lock keeps other transactions' statements out,
  // the query lock single statements; then the file system is synced, as PGlite does.
  const { done, error, schemaChanged } = options.inTransaction
    ? await pglite._runExclusiveQuery(run)
    : await pglite._runExclusiveTransaction(() => pglite._runExclusiveQuery(run));
  if (!options.inTransaction) await pglite.syncToFs();
  const offset = options.before ? 1 : 0;
  let stale = false;
  if (names) {
    named.forEach((use, i) => {
      const text = (statements[i] as Statement).text;
      const ok = i + offset < done.length;
      const failed = !ok && i + offset === done.length;
      if (ok && use.fresh) names.keep(text, use.name);
      else if (failed && !use.fresh && isStale(error)) {
        stale = true;
        names.drop(text, use.name);
      } else if (!ok && use.fresh) names.drop(text, use.name);
    });
    if (schemaChanged) names.forgetAll();
  }
  // The statement before or after the others failed: nothing to report per statement.
  if (error && (done.length < offset || done.length > offset + statements.length)) throw error;
  const settled = statements.map((_, i): Settled<QueryResult> => {
    const r = done[i + offset];
    if (r) return { ok: true, value: r };
    return { ok: false, error: error && i + offset === done.length ? error : skipped() };
  });
  return { settled, stale };
}
