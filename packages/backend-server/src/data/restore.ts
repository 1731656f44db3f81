import type { Transaction } from '../db/index';
import { DUMP_END, DUMP_HEADER } from './dump';

/** A dump or archive that cannot be loaded: the message says why; nothing was changed. */
export class DataError extends Error {
  override name = 'DataError';
}

/** One piece of a SQL script: statements to run, or the rows of one COPY … FROM stdin. */
export type ScriptPart = { sql: string } | { copy: string; data: Uint8Array };

const COPY_LINE = /^COPY (.+) FROM stdin;$/;
const END_OF_DATA = Buffer.from('\n\\.\n');

/**
 * Splits a SQL script (ours, or a plain pg_dump) into statements and COPY blocks, as psql
 * reads them: a line `COPY … FROM stdin;` is followed by rows up to a line `\.`. psql's
 * `\restrict` / `\unrestrict` lines (pg_dump 17.6+) are skipped; any other backslash
 * command is refused.
 */
export function splitScript(script: Uint8Array): ScriptPart[] {
  const buf = Buffer.from(script.buffer, script.byteOffset, script.byteLength);
  const parts: ScriptPart[] = [];
  let sqlStart = 0;
  let lineStart = 0;
  const pushSql = (end: number) => {
    if (end <= sqlStart) return;
    const lines = buf
      .toString('utf8', sqlStart, end)
      .split('\n')
      .filter((line) => {
        if (!line.startsWith('\\')) return true;
        if (/^\\(un)?restrict\b/.test(line)) return false;
        throw new DataError(`psql command ${line.split(/\s/)[0]} is not supported in an import`);
      });
    const sql = lines.join('\n');
    if (sql.trim() !== '') parts.push({ sql });
  };
  while (lineStart < buf.length) {
    let lineEnd = buf.indexOf(10, lineStart);
    if (lineEnd < 0) lineEnd = buf.length;
    // Only lines that can be a COPY line are decoded.
    if (
      buf[lineStart] === 0x43 /* C */ &&
      buf.toString('latin1', lineStart, lineStart + 5) === 'COPY '
    ) {
      const match = COPY_LINE.exec(buf.toString('utf8', lineStart, lineEnd).trimEnd());
      if (match) {
        pushSql(lineStart);
        const dataStart = lineEnd + 1;
        const end =
          buf.subarray(dataStart, dataStart + 3).toString('latin1') === '\\.\n'
            ? dataStart - 1
            : buf.indexOf(END_OF_DATA, dataStart - 1);
        if (end < 0)
          throw new DataError(
            `the rows of COPY ${match[1]} have no end (\\.): the file is cut short`,
          );
        parts.push({ copy: match[1] as string, data: buf.subarray(dataStart, end + 1) });
        lineStart = end + END_OF_DATA.length;
        sqlStart = lineStart;
        continue;
      }
    }
    lineStart = lineEnd + 1;
  }
  pushSql(buf.length);
  return parts;
}

/** True when `script` starts like a dump of this server. */
export function isOurDump(script: Uint8Array): boolean {
  return Buffer.from(script.buffer, script.byteOffset, Math.min(script.byteLength, 64))
    .toString('utf8')
    .startsWith(DUMP_HEADER);
}

/**
 * Runs a SQL script inside `tx`: statements as they are, COPY blocks through the driver.
 * A dump of ours must end with its completion line (else it was cut short).
 */
export async function applyScript(
  tx: Transaction,
  script: Uint8Array,
): Promise<{ tables: number; rows: number }> {
  if (isOurDump(script)) {
    const tail = Buffer.from(script.buffer, script.byteOffset, script.byteLength)
      .toString('utf8', Math.max(0, script.byteLength - DUMP_END.length - 2))
      .trim();
    if (!tail.endsWith(DUMP_END))
      throw new DataError('the dump is cut short (its last line is missing)');
  }
  let tables = 0;
  let rows = 0;
  for (const part of splitScript(script)) {
    if ('sql' in part) await tx.exec(part.sql);
    else {
      await tx.copyIn(part.copy, part.data);
      tables += 1;
      const data = Buffer.from(part.data.buffer, part.data.byteOffset, part.data.byteLength);
      for (let at = data.indexOf(10); at !== -1; at = data.indexOf(10, at + 1)) rows += 1;
    }
  }
  return { tables, rows };
}

/** Session settings a dump changes, put back after it ran (the connection is shared). */
export const RESET_AFTER_DUMP =
  'reset check_function_bodies; reset client_min_messages; reset session_replication_role;';
