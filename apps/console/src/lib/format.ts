/**
 * `1.5 MB`, in decimal units (1 MB = 1,000,000 bytes): the units storage reads in a
 * bucket limit such as `20MB`, so a limit typed as 20MB shows as 20 MB.
 */
export function bytes(n: number | null | undefined): string {
  if (n === null || n === undefined || Number.isNaN(n)) return '—';
  if (n < 1000) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n / 1000;
  let i = 0;
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000;
    i += 1;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}

/** Local date and time, to the second. */
export function when(value: string | number | null | undefined): string {
  if (value === null || value === undefined || value === '') return '—';
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? String(value) : d.toLocaleString();
}

/** Clock time with milliseconds, for log lines. */
export function clock(ms: number): string {
  const d = new Date(ms);
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
}

/** A duration: `850 ms`, `12.4 s`, `3 min 5 s`; `—` for none. */
export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || Number.isNaN(ms) || ms < 0) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return age(Math.round(ms / 1000));
}

const AGE_UNITS: [string, number][] = [
  ['d', 86_400],
  ['h', 3600],
  ['min', 60],
  ['s', 1],
];

/** An age in seconds, to its two largest units: `45 s`, `3 min 5 s`, `2 h 10 min`, `3 d 4 h`. */
export function age(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || Number.isNaN(seconds) || seconds < 0) return '—';
  const rest = Math.round(seconds);
  const i = AGE_UNITS.findIndex(([, size]) => rest >= size);
  const [name, size] = AGE_UNITS[i] ?? ['s', 1];
  const n = Math.floor(rest / size);
  const next = AGE_UNITS[i + 1];
  const m = next && i >= 0 ? Math.floor((rest - n * size) / next[1]) : 0;
  return m > 0 && next ? `${n} ${name} ${m} ${next[0]}` : `${n} ${name}`;
}
