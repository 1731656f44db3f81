import { describe, expect, it } from 'vitest';
import { nextDue, parseSchedule } from '../../../src/cron/schedule';

const at = (iso: string) => Date.parse(iso);
const next = (schedule: string, after: string) => {
  const parsed = parseSchedule(schedule);
  if (!parsed) throw new Error(`refused: ${schedule}`);
  const due = nextDue(parsed, at(after));
  return due === null ? null : new Date(due).toISOString();
};

describe('pg_cron schedules', () => {
  it('runs N-second jobs on the multiples of N seconds', () => {
    expect(next('1 seconds', '2026-01-01T00:00:00.400Z')).toBe('2026-01-01T00:00:01.000Z');
    expect(next('1 second', '2026-01-01T00:00:01.000Z')).toBe('2026-01-01T00:00:02.000Z');
    expect(next('15 seconds', '2026-01-01T00:00:16.000Z')).toBe('2026-01-01T00:00:30.000Z');
  });

  it('reads the five cron fields, names, ranges, lists and steps (UTC)', () => {
    expect(next('* * * * *', '2026-01-01T00:00:30Z')).toBe('2026-01-01T00:01:00.000Z');
    expect(next('*/15 * * * *', '2026-01-01T00:01:00Z')).toBe('2026-01-01T00:15:00.000Z');
    expect(next('5 4 * * *', '2026-01-01T04:05:00Z')).toBe('2026-01-02T04:05:00.000Z');
    expect(next('0 9 * * mon-fri', '2026-01-02T10:00:00Z')).toBe('2026-01-05T09:00:00.000Z');
    expect(next('0 0 1,15 jan,jul *', '2026-01-02T00:00:00Z')).toBe('2026-01-15T00:00:00.000Z');
    expect(next('@hourly', '2026-01-01T00:30:00Z')).toBe('2026-01-01T01:00:00.000Z');
    expect(next('0 0 * * 7', '2026-01-01T00:00:00Z')).toBe('2026-01-04T00:00:00.000Z');
  });

  it('takes $ for the last day of the month', () => {
    expect(next('0 12 $ * *', '2026-02-01T00:00:00Z')).toBe('2026-02-28T12:00:00.000Z');
    expect(next('0 12 $ * *', '2028-02-01T00:00:00Z')).toBe('2028-02-29T12:00:00.000Z');
  });

  it('matches either day field when both are restricted, as cron', () => {
    // 13th of the month or a Friday: Friday 2 January 2026 comes first.
    expect(next('0 0 13 * fri', '2026-01-01T00:00:00Z')).toBe('2026-01-02T00:00:00.000Z');
  });

  it('never runs a date that does not exist, and refuses what pg_cron refuses', () => {
    expect(next('0 0 30 2 *', '2026-01-01T00:00:00Z')).toBeNull();
    for (const bad of [
      '0 seconds',
      '60 seconds',
      '* * * *',
      '60 * * * *',
      '* 24 * * *',
      'x * * * *',
      '*/0 * * * *',
    ])
      expect(parseSchedule(bad)).toBeNull();
  });
});
