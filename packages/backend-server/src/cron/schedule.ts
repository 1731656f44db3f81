/**
 * pg_cron's schedule syntax, for the scheduler: `'N seconds'` (1–59), five cron fields
 * (minute, hour, day of month — `$` for its last day —, month, day of week; names, ranges,
 * lists and steps), and `@yearly` … `@hourly`, `@reboot`. Times are UTC (pg_cron's default
 * `cron.timezone`). The extension's SQL checks a schedule when a job is scheduled and raises
 * pg_cron's `invalid schedule` error; a schedule this parser refuses is never run.
 */

export type Schedule =
  | { kind: 'seconds'; every: number }
  | { kind: 'reboot' }
  | {
      kind: 'cron';
      minutes: Set<number>;
      hours: Set<number>;
      days: Set<number>;
      lastDay: boolean;
      months: Set<number>;
      weekdays: Set<number>;
      anyDay: boolean;
      anyWeekday: boolean;
    };

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
const MACROS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@hourly': '0 * * * *',
};

function field(text: string, lo: number, hi: number, names: string[] = []): Set<number> | null {
  const out = new Set<number>();
  const value = (s: string | undefined) => {
    if (s === undefined) return undefined;
    const named = names.indexOf(s);
    if (named >= 0) return named + lo;
    return /^\d+$/.test(s) ? Number(s) : Number.NaN;
  };
  for (const part of text.toLowerCase().split(',')) {
    const m = /^(\*|[0-9a-z]+)(?:-([0-9a-z]+))?(?:\/(\d+))?$/.exec(part);
    if (!m) return null;
    const step = m[3] === undefined ? 1 : Number(m[3]);
    if (step < 1) return null;
    let from = lo;
    let to = hi;
    if (m[1] !== '*') {
      from = value(m[1]) as number;
      to = m[2] !== undefined ? (value(m[2]) as number) : m[3] !== undefined ? hi : from;
    } else if (m[2] !== undefined) return null;
    if (!(from >= lo && from <= hi && to >= lo && to <= hi)) return null;
    for (let v = from; v <= to; v += step) out.add(v);
  }
  return out;
}

/** The schedule, or null when pg_cron would refuse it. */
export function parseSchedule(text: string): Schedule | null {
  const trimmed = text.trim().toLowerCase();
  const seconds = /^(\d+)\s+seconds?$/.exec(trimmed);
  if (seconds) {
    const every = Number(seconds[1]);
    return every >= 1 && every <= 59 ? { kind: 'seconds', every } : null;
  }
  if (trimmed === '@reboot') return { kind: 'reboot' };
  const fields = (MACROS[trimmed] ?? trimmed).split(/\s+/);
  if (fields.length !== 5) return null;
  const [mi, h, d, mo, w] = fields as [string, string, string, string, string];
  const minutes = field(mi, 0, 59);
  const hours = field(h, 0, 23);
  const lastDay = d === '$';
  const days = lastDay ? new Set<number>() : field(d, 1, 31);
  const months = field(mo, 1, 12, MONTHS);
  const weekdays = field(w, 0, 7, WEEKDAYS);
  if (!minutes || !hours || !days || !months || !weekdays) return null;
  if (weekdays.has(7)) weekdays.add(0);
  return {
    kind: 'cron',
    minutes,
    hours,
    days,
    lastDay,
    months,
    weekdays,
    anyDay: d === '*',
    anyWeekday: w === '*',
  };
}

const DAY = 86_400_000;

function dayMatches(s: Extract<Schedule, { kind: 'cron' }>, date: Date): boolean {
  if (!s.months.has(date.getUTCMonth() + 1)) return false;
  const dom = date.getUTCDate();
  const last = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 0)).getUTCDate();
  const byDay = s.lastDay ? dom === last : s.days.has(dom);
  const byWeekday = s.weekdays.has(date.getUTCDay());
  // As cron: when both fields are restricted, either may match.
  if (s.anyDay && s.anyWeekday) return true;
  if (s.anyDay) return byWeekday;
  if (s.anyWeekday) return byDay;
  return byDay || byWeekday;
}

/**
 * The first time (epoch ms) strictly after `after` the schedule is due, or null (`@reboot`,
 * or a date that never comes within five years, such as 30 February).
 * `N seconds` jobs are due on the wall clock's multiples of N seconds.
 */
export function nextDue(s: Schedule, after: number): number | null {
  if (s.kind === 'reboot') return null;
  if (s.kind === 'seconds') {
    const every = s.every * 1000;
    return (Math.floor(after / every) + 1) * every;
  }
  let t = (Math.floor(after / 60_000) + 1) * 60_000;
  const limit = after + 5 * 366 * DAY;
  while (t < limit) {
    const date = new Date(t);
    if (!dayMatches(s, date)) {
      t = (Math.floor(t / DAY) + 1) * DAY;
      continue;
    }
    if (!s.hours.has(date.getUTCHours())) {
      t = (Math.floor(t / 3_600_000) + 1) * 3_600_000;
      continue;
    }
    if (s.minutes.has(date.getUTCMinutes())) return t;
    t += 60_000;
  }
  return null;
}
