import { describe, expect, it } from 'vitest';
import { fileStatus, isTapLine, judge, passed, summary } from '../../../src/data/tap';

describe('judging a pgTAP file as pg_prove does', () => {
  it('passes a file whose plan matches and whose tests pass; TODO failures do not count', () => {
    const v = judge('a.sql', ['1..3', 'ok 1 - a', 'not ok 2 - b # TODO later', 'ok 3'], null);
    expect(passed(v)).toBe(true);
    expect(fileStatus(v)).toBe('ok');
    expect(summary([v])).toEqual(['All tests successful.', 'Files=1, Tests=3', 'Result: PASS']);
  });

  it('fails on a failed test, a missing or bad plan, a bail out and an SQL error', () => {
    const failed = judge('f.sql', ['1..2', 'ok 1', 'not ok 2 - wrong', '# Failed test 2'], null);
    expect(failed.failed).toEqual([2]);
    expect(fileStatus(failed)).toBe('Failed 1/2 subtests');
    expect(judge('n.sql', ['ok 1'], null).problem).toBe('No plan found in TAP output');
    expect(judge('b.sql', ['1..3', 'ok 1'], null).problem).toBe(
      'Bad plan.  You planned 3 tests but ran 1.',
    );
    expect(judge('x.sql', ['1..1', 'Bail out! no database'], null).problem).toBe(
      'Bail out! no database',
    );
    const broken = judge('e.sql', ['1..2', 'ok 1'], 'line 3: ERROR:  boom');
    expect(broken.problem).toBe('the SQL failed: line 3: ERROR:  boom');
    expect(summary([failed, broken])).toEqual([
      '',
      'Test Summary Report',
      '-------------------',
      'f.sql (Tests: 2 Failed: 1)',
      '  Failed test:  2',
      'e.sql (Tests: 1 Failed: 0)',
      '  the SQL failed: line 3: ERROR:  boom',
      'Files=2, Tests=3',
      'Result: FAIL',
      'Failed 2/2 test programs. 1/3 subtests failed.',
    ]);
  });

  it('keeps the TAP lines of what the statements return', () => {
    expect(
      ['1..2', 'ok 1', 'not ok 2', '# diag', '    # indented', 'Bail out!'].every(isTapLine),
    ).toBe(true);
    expect(['okay', '{"sub": 1}', 'set_config', ''].some(isTapLine)).toBe(false);
  });
});
