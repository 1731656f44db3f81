import { type PGlite, protocol, types } from '@electric-sql/pglite';
import type { QueryResult, Row, Settled, Statement } from './types';

type Message = { name: string } & Record<string, unknown>;

/** A parameter as text, or undefined when it needs PGlite's typed serializers. */
function asText(value: unknown): string | null | undefined {
  if (value === null || value === undefined) return null;
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
    case 'bigint':
      return String(value);
    case 'boolean':
      return value ? 't' : 'f';
    default:
      return undefined;
  }
}

const skipped = () =>
  Object.assign(new Error('current transaction is aborted, statement not run'), {
    code: '25P02',
  });

/**
 * `readBatch` on PGlite as one protocol exchange: BEGIN READ ONLY, each statement
 * (parse, bind, describe, execute) and COMMIT, then one Sync, in a single call into the
 * WASM backend instead of about six per statement. Returns null when a parameter is not
 * plain text, number or boolean (the caller then runs the statements one by one).
 */
export async function pgliteReadBatch(
  pglite: PGlite,
  statements: readonly Statement[],
  rollback: boolean,
): Promise<Settled<QueryResult>[] | null> {
  const values: (string | null)[][] = [];
  for (const st of statements) {
    const row: (string | null)[] = [];
    for (const p of st.params) {
      const text = asText(p);
      if (text === undefined) return null;
      row.push(text);
    }
    values.push(row);
  }
  const simple = (text: string) => [
    protocol.serialize.parse({ text }),
    protocol.serialize.bind({}),
    protocol.serialize.execute({}),
  ];
  const parts: Uint8Array[] = [...simple('begin read only')];
  statements.forEach((st, i) => {
    parts.push(
      protocol.serialize.parse({ text: st.text }),
      protocol.serialize.bind({ values: values[i] }),
      protocol.serialize.describe({ type: 'P' }),
      protocol.serialize.execute({}),
    );
  });
  parts.push(...simple(rollback ? 'rollback' : 'commit'), protocol.serialize.sync());
  const message = Buffer.concat(parts);
  // The transaction lock keeps other transactions' statements out; the query lock keeps
  // single statements out.
  return pglite._runExclusiveTransaction(() =>
    pglite._runExclusiveQuery(async () => {
      const messages = (await pglite.execProtocolStream(message, {
        throwOnError: false,
        syncToFs: false,
      })) as unknown as Message[];
      const done: QueryResult[] = [];
      let fields: { name: string; dataTypeID: number }[] = [];
      let rows: Row[] = [];
      let error: unknown = null;
      let status = 'I';
      for (const msg of messages) {
        if (msg.name === 'rowDescription') {
          fields = (msg.fields as { name: string; dataTypeID: number }[]).map((f) => ({
            name: f.name,
            dataTypeID: f.dataTypeID,
          }));
        } else if (msg.name === 'dataRow') {
          const row: Row = {};
          (msg.fields as (string | null)[]).forEach((x, i) => {
            const f = fields[i] as { name: string; dataTypeID: number };
            row[f.name] = x === null ? null : types.parseType(x, f.dataTypeID, pglite.parsers);
          });
          rows.push(row);
        } else if (msg.name === 'commandComplete') {
          const tag = String(msg.text ?? '');
          const n = Number(tag.split(' ').pop());
          done.push({ rows, fields, affectedRows: Number.isFinite(n) ? n : rows.length });
          fields = [];
          rows = [];
        } else if (msg.name === 'error') {
          error = msg;
        } else if (msg.name === 'readyForQuery') {
          status = String(msg.status);
        }
      }
      // A failure skips the rest up to Sync and leaves the block aborted: end it.
      if (status !== 'I') await pglite.execProtocolStream(protocol.serialize.query('rollback'));
      // done[0] is BEGIN; the statements follow; the last is COMMIT / ROLLBACK.
      // BEGIN or COMMIT itself failed: nothing to report per statement.
      if (error && (done.length === 0 || done.length > statements.length)) throw error;
      return statements.map((_, i): Settled<QueryResult> => {
        const r = done[i + 1];
        if (r) return { ok: true, value: r };
        return { ok: false, error: error && i + 1 === done.length ? error : skipped() };
      });
    }),
  );
}
