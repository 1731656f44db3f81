/**
 * `db test`: the project's pgTAP tests, as the hosted CLI runs them with pg_prove (files
 * ending in `.sql` or `.pg`, folders searched recursively, in name order), against the
 * command's database. pgTAP is created for the run when the database does not have it
 * (`with schema extensions`, dropped again after). Each file runs in one transaction that is
 * rolled back, so nothing it does stays; the file's own `begin` / `commit` / `rollback` are
 * that transaction's bounds. Its TAP is printed as it comes and judged as pg_prove does.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { type ScriptStatement, splitStatements } from '../console/split';
import { pgtapSearchDirs } from '../db/extensions/pgtap';
import { type Database, pgError, type QueryResult } from '../db/index';
import { DataError } from './restore';
import { type FileVerdict, fileStatus, isTapLine, judge, passed, summary } from './tap';

const TEST_FILE = /\.(sql|pg)$/i;

/** The test files of `paths` (files as given; folders searched recursively), sorted. */
export async function findTestFiles(paths: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true });
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile() && TEST_FILE.test(entry.name)) out.push(path);
    }
  };
  for (const given of paths) {
    const path = resolve(given);
    const info = await stat(path).catch(() => null);
    if (!info) throw new DataError(`${given} does not exist`);
    if (info.isDirectory()) {
      const before = out.length;
      await walk(path);
      out.splice(before, out.length - before, ...out.slice(before).sort());
    } else out.push(path);
  }
  if (out.length === 0) {
    throw new DataError(`no test files (*.sql, *.pg) in ${paths.join(', ')}`);
  }
  return out;
}

/** The file's own transaction bounds: the run's transaction takes their place. */
const TRANSACTION_CONTROL =
  /^(begin|start\s+transaction|commit|end|abort|rollback)\b(?!\s+(and\s+)?(to|prepared)\b)/i;

/** A statement without the psql meta-commands (`\set …`, one line each) before it. */
function withoutMetaCommands(text: string): string {
  let rest = text;
  while (rest.startsWith('\\')) {
    const end = rest.indexOf('\n');
    rest = end < 0 ? '' : rest.slice(end + 1).trimStart();
  }
  return rest;
}

/** Raised inside the file's transaction so that it is rolled back. */
class RollBack extends Error {}

/** The SQL error as psql shows it, with the line of the file it comes from. */
function describeError(error: unknown, script: string, statement: ScriptStatement): string {
  const e = pgError(error);
  const message = e?.message ?? (error instanceof Error ? error.message : String(error));
  const position = Number((error as { position?: unknown })?.position);
  const at =
    Number.isInteger(position) && position > 0 ? statement.offset + position - 1 : statement.offset;
  const line = script.slice(0, at).split('\n').length;
  return [
    `line ${line}: ERROR:  ${message}`,
    ...(e?.detail ? [`DETAIL:  ${e.detail}`] : []),
    ...(e?.hint ? [`HINT:  ${e.hint}`] : []),
  ].join('\n');
}

/** Runs one file in a transaction that is rolled back; resolves to its TAP and error. */
async function runFile(
  db: Database,
  script: string,
  print: (line: string) => void,
): Promise<{ lines: string[]; error: string | null }> {
  const lines: string[] = [];
  let error: string | null = null;
  try {
    await db.transaction(async (tx) => {
      // pgTAP's schema on the path, as `extensions` is on a hosted database's.
      await tx.query(
        `select pg_catalog.set_config('search_path',
           pg_catalog.current_setting('search_path') || ', ' || pg_catalog.quote_ident(n.nspname), true)
           from pg_catalog.pg_extension e join pg_catalog.pg_namespace n on n.oid = e.extnamespace
          where e.extname = 'pgtap'`,
      );
      for (const statement of splitStatements(script)) {
        const text = withoutMetaCommands(statement.text);
        if (text === '' || TRANSACTION_CONTROL.test(text)) continue;
        let result: QueryResult;
        try {
          result = await tx.query(text);
        } catch (failure) {
          error = describeError(failure, script, statement);
          throw new RollBack();
        }
        for (const row of result.rows) {
          const value = result.fields
            .map((f) => row[f.name])
            .map((v) => (v === null || v === undefined ? '' : String(v)))
            .join('|');
          for (const line of value.split('\n')) {
            if (!isTapLine(line)) continue;
            lines.push(line);
            print(line);
          }
        }
      }
      throw new RollBack();
    });
  } catch (failure) {
    if (!(failure instanceof RollBack)) throw failure;
  }
  return { lines, error };
}

/** Creates pgTAP for the run when the database lacks it; resolves to whether it did. */
async function providePgtap(db: Database): Promise<boolean> {
  const { rows } = await db.query(`select 1 from pg_catalog.pg_extension where extname = 'pgtap'`);
  if (rows.length > 0) return false;
  try {
    await db.exec('create extension if not exists pgtap with schema extensions');
  } catch (error) {
    const e = pgError(error);
    const message = e?.message ?? String(error);
    const missing = e?.code === '0A000' || e?.code === '58P01';
    if (!missing) throw new DataError(`pgTAP could not be installed: ${message}`);
    throw new DataError(
      db.kind === 'pglite'
        ? `pgTAP is not available (${message}). The embedded database loads pgTAP's SQL from this machine's PostgreSQL installation (${pgtapSearchDirs().join(', ')}): install it there (Debian: apt-get install postgresql-15-pgtap).`
        : `pgTAP is not installed on this PostgreSQL server (${message}). Install it where the server runs (Debian: apt-get install postgresql-15-pgtap).`,
    );
  }
  return true;
}

export interface DbTestResult {
  verdicts: FileVerdict[];
  ok: boolean;
}

/**
 * Runs the test files against `db`, printing each file's TAP and the summary through
 * `print`; resolves to the verdicts. SQL errors fail their file, they do not stop the run.
 */
export async function runDbTests(
  db: Database,
  files: readonly string[],
  print: (line: string) => void,
): Promise<DbTestResult> {
  const created = await providePgtap(db);
  const verdicts: FileVerdict[] = [];
  try {
    for (const file of files) {
      const shown = relative(process.cwd(), file) || file;
      print(`${shown} ..`);
      const script = await readFile(file, 'utf8');
      const { lines, error } = await runFile(db, script, print);
      const verdict = judge(shown, lines, error);
      if (error) for (const line of error.split('\n')) print(`# ${line}`);
      print(fileStatus(verdict));
      verdicts.push(verdict);
    }
  } finally {
    if (created) await db.exec('drop extension if exists pgtap');
  }
  for (const line of summary(verdicts)) print(line);
  return { verdicts, ok: verdicts.every(passed) };
}

/** The folders `db test` reads when no paths are given: the project's `tests`. */
export function defaultTestPaths(projectDir: string | undefined): string[] {
  const dir = resolve(projectDir ?? 'backend', 'tests');
  if (!existsSync(dir)) throw new DataError(`${dir} does not exist (the project's tests)`);
  return [dir];
}
