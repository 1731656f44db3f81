/**
 * The TAP a pgTAP test file prints, judged as pg_prove (TAP::Harness) judges it: the plan
 * (`1..N`), each `ok N` / `not ok N` (a `# TODO` failure does not count), `Bail out!`, and
 * the summary at the end of a run.
 */

/** What one test file did. */
export interface FileVerdict {
  /** The file as shown (relative to the working directory). */
  file: string;
  planned: number | null;
  /** Tests run (`ok` and `not ok` lines). */
  run: number;
  /** Numbers of the tests that failed (TODO tests excluded). */
  failed: number[];
  /** Why the file failed besides failed tests: no plan, a bad plan, an error, a bail out. */
  problem: string | null;
}

export const passed = (v: FileVerdict): boolean => v.failed.length === 0 && v.problem === null;

const TEST_LINE = /^(not )?ok\b\s*(\d+)?([^#]*)(#\s*(\w+))?/;

/** True for the lines of TAP (the rest of what the statements return is not printed). */
export const isTapLine = (line: string): boolean =>
  /^(not ok\b|ok\b|1\.\.\d+|\s*#|Bail out!)/.test(line);

/** Judges one file's TAP lines; `error` is the SQL error that stopped it, if any. */
export function judge(file: string, lines: readonly string[], error: string | null): FileVerdict {
  let planned: number | null = null;
  let run = 0;
  let bailed: string | null = null;
  const failed: number[] = [];
  for (const line of lines) {
    const plan = /^1\.\.(\d+)/.exec(line);
    if (plan) {
      planned = Number(plan[1]);
      continue;
    }
    if (line.startsWith('Bail out!')) bailed ??= line;
    const test = TEST_LINE.exec(line);
    if (!test) continue;
    run += 1;
    const todo = test[5]?.toUpperCase() === 'TODO';
    if (test[1] && !todo) failed.push(test[2] ? Number(test[2]) : run);
  }
  let problem: string | null = null;
  if (error) problem = `the SQL failed: ${error}`;
  else if (bailed) problem = bailed;
  else if (planned === null) problem = 'No plan found in TAP output';
  else if (planned !== run) problem = `Bad plan.  You planned ${planned} tests but ran ${run}.`;
  return { file, planned, run, failed, problem };
}

/** The line after a file's TAP: `ok`, or why it failed. */
export function fileStatus(v: FileVerdict): string {
  if (passed(v)) return v.planned === 0 && v.run === 0 ? 'skipped' : 'ok';
  const parts: string[] = [];
  if (v.failed.length > 0) parts.push(`Failed ${v.failed.length}/${v.run} subtests`);
  if (v.problem) parts.push(v.problem);
  return parts.join('\n');
}

/** The end of a run, as pg_prove prints it: the failures, counts and the result. */
export function summary(verdicts: readonly FileVerdict[]): string[] {
  const tests = verdicts.reduce((n, v) => n + v.run, 0);
  const failedFiles = verdicts.filter((v) => !passed(v));
  const counts = `Files=${verdicts.length}, Tests=${tests}`;
  if (failedFiles.length === 0) return ['All tests successful.', counts, 'Result: PASS'];
  const out = ['', 'Test Summary Report', '-------------------'];
  for (const v of failedFiles) {
    out.push(`${v.file} (Tests: ${v.run} Failed: ${v.failed.length})`);
    if (v.failed.length > 0) {
      out.push(`  Failed test${v.failed.length > 1 ? 's' : ''}:  ${v.failed.join(', ')}`);
    }
    if (v.problem) out.push(`  ${v.problem}`);
  }
  const subtests = verdicts.reduce((n, v) => n + v.failed.length, 0);
  out.push(
    counts,
    'Result: FAIL',
    `Failed ${failedFiles.length}/${verdicts.length} test programs. ${subtests}/${tests} subtests failed.`,
  );
  return out;
}
