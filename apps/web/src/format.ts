const UNITS = ['B', 'KB', 'MB', 'GB', 'TB'] as const;

/**
 * A byte count for people: binary multiples, at most one decimal, no trailing ".0".
 *
 * @example
 * formatBytes(1536) // '1.5 KB'
 */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '—';
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const rounded = unit === 0 ? Math.round(value) : Math.round(value * 10) / 10;
  return `${rounded} ${UNITS[unit]}`;
}

/**
 * A transfer rate for people.
 *
 * @example
 * formatRate(1536) // '1.5 KB/s'
 */
export function formatRate(bytesPerSecond: number): string {
  if (!(bytesPerSecond > 0)) return '—';
  return `${formatBytes(bytesPerSecond)}/s`;
}

/**
 * Time left for people: "12 s", "3 min", "1 h 5 min".
 *
 * @example
 * formatDuration(125) // '2 min'
 */
export function formatDuration(seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds) || seconds < 0) return '—';
  if (seconds < 60) return `${Math.ceil(seconds)} s`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min`;
  const h = Math.floor(seconds / 3600);
  const m = Math.round((seconds % 3600) / 60);
  return m ? `${h} h ${m} min` : `${h} h`;
}

let dateFormat: Intl.DateTimeFormat | null = null;

/**
 * A date and time, short, in the reader's locale (one shared formatter: building one per
 * call costs more than rendering a row).
 *
 * @example
 * formatDate('2026-11-22T05:00:00Z')
 */
export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '—';
  dateFormat ??= new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
  return dateFormat.format(date);
}

/** Checks a file or folder name against the product's rules; returns a sentence or null. */
export function nameProblem(name: string): string | null {
  if (name.length === 0) return 'Enter a name.';
  if (name.length > 255)
    return `This name is too long: ${name.length} characters. Names can have at most 255.`;
  if (name.includes('/')) return 'Names cannot contain “/”.';
  if (name.includes('\0')) return 'Names cannot contain NUL characters.';
  if (name === '.' || name === '..') return 'Names cannot be “.” or “..”.';
  return null;
}
