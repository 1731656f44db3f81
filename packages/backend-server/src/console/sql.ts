import type { Database, QueryResult } from '../db/index';
import type { SqlError, SqlFailure, SqlResponse, SqlResult } from './api-types';
import { type ScriptStatement, splitStatements } from './split';

/** Rows of one result sent to the console; the count says how many there were. */
export const MAX_ROWS = 1000;

/** Statements Postgres refuses inside a transaction block: they run alone. */
const OUTSIDE_TRANSACTION =
  /^(vacuum|create\s+database|drop\s+database|alter\s+system|create\s+(unique\s+)?index\s+concurrently|drop\s+index\s+concurrently|reindex\s+.*concurrently|cluster)\b/i;

export type SqlOutcome = ({ ok: true } & SqlResponse) | ({ ok: false } & SqlFailure);

function toResult(statement: ScriptStatement, result: QueryResult): SqlResult {
  const columns = result.fields.map((f) => f.name);
  const rows = result.rows.slice(0, MAX_ROWS).map((row) => columns.map((name) => row[name]));
  const command = /^\s*(\w+)/.exec(statement.text)?.[1]?.toUpperCase() ?? '';
  return {
    command,
    columns,
    rows,
    rowCount: result.fields.length > 0 ? result.rows.length : result.affectedRows,
    truncated: result.rows.length > MAX_ROWS,
  };
}

function toError(error: unknown, script: string, statement: ScriptStatement, index: number) {
  const e = (typeof error === 'object' && error !== null ? error : {}) as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);
  const inStatement = Number(e.position);
  const position =
    Number.isInteger(inStatement) && inStatement > 0 ? statement.offset + inStatement : null;
  let line: number | null = null;
  let column: number | null = null;
  if (position !== null) {
    const before = script.slice(0, position - 1).split('\n');
    line = before.length;
    column = (before.at(-1)?.length ?? 0) + 1;
  }
  return {
    message: str(e.message) ?? String(error),
    code: str(e.code),
    detail: str(e.detail),
    hint: str(e.hint),
    position,
    line,
    column,
    statement: index,
  } satisfies SqlError;
}

/**
 * Runs a script as the database superuser (the console's SQL screen): all its statements in
 * one transaction, committed only when every one succeeds, with a statement timeout; a
 * statement that cannot run in a transaction (VACUUM, CREATE INDEX CONCURRENTLY, …) must be
 * alone in the script.
 */
export async function runSql(
  db: Database,
  script: string,
  timeoutMs = 60_000,
): Promise<SqlOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const statements = splitStatements(script);
  if (statements.length === 0) return { ok: true, results: [], durationMs: 0 };
  const alone = statements.length === 1 && OUTSIDE_TRANSACTION.test(statements[0]?.text ?? '');
  if (alone) {
    const statement = statements[0] as ScriptStatement;
    try {
      const result = await db.query(statement.text);
      return { ok: true, results: [toResult(statement, result)], durationMs: elapsed() };
    } catch (error) {
      return { ok: false, error: toError(error, script, statement, 0), durationMs: elapsed() };
    }
  }
  const results: SqlResult[] = [];
  let failed: SqlError | null = null;
  try {
    await db.transaction(async (tx) => {
      await tx.query(`select set_config('statement_timeout', $1, true)`, [`${timeoutMs}ms`]);
      for (const [index, statement] of statements.entries()) {
        try {
          results.push(toResult(statement, await tx.query(statement.text)));
        } catch (error) {
          failed = toError(error, script, statement, index);
          throw error;
        }
      }
    });
  } catch (error) {
    failed ??= toError(error, script, statements[0] as ScriptStatement, 0);
    return { ok: false, error: failed, durationMs: elapsed() };
  }
  return { ok: true, results, durationMs: elapsed() };
}
