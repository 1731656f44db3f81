import { currentLocale, t } from './i18n';

const UNITS = ['B', 'KB', 'MB', 'GB', 'TB'] as const;
const memo = new Map<string, Intl.NumberFormat | Intl.DateTimeFormat>();
function numberFormat(): Intl.NumberFormat {
  const locale = currentLocale();
  let f = memo.get(`n:${locale}`) as Intl.NumberFormat | undefined;
  if (!f) {
    f = new Intl.NumberFormat(locale, { maximumFractionDigits: 1, useGrouping: false });
    memo.set(`n:${locale}`, f);
  }
  return f;
}
/** A number in the active language's digits (no grouping: sizes stay below 1024). */
export function formatNumber(n: number): string {
  return numberFormat().format(n);
}

/**
 * Names as a list in the active language.
 *
 * @example
 * formatList(['Ann', 'Bob']) // 'Ann, Bob'
 */
export function formatList(items: readonly string[]): string {
  return new Intl.ListFormat(currentLocale(), { style: 'short', type: 'unit' }).format(items);
}

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
  return t(`unit.${UNITS[unit] ?? 'TB'}`, { n: numberFormat().format(rounded) });
}

/**
 * A transfer rate for people.
 *
 * @example
 * formatRate(1536) // '1.5 KB/s'
 */
export function formatRate(bytesPerSecond: number): string {
  if (!(bytesPerSecond > 0)) return '—';
  return t('rate', { size: formatBytes(bytesPerSecond) });
}

/**
 * Time left for people: "12 s", "3 min", "1 h 5 min".
 *
 * @example
 * formatDuration(125) // '2 min'
 */
export function formatDuration(seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds) || seconds < 0) return '—';
  if (seconds < 60) return t('duration.s', { n: formatNumber(Math.ceil(seconds)) });
  if (seconds < 3600) return t('duration.min', { n: formatNumber(Math.round(seconds / 60)) });
  const h = Math.floor(seconds / 3600);
  const m = Math.round((seconds % 3600) / 60);
  return m
    ? t('duration.hmin', { h: formatNumber(h), m: formatNumber(m) })
    : t('duration.h', { h: formatNumber(h) });
}

/**
 * A date and time, short, in the active language (one shared formatter: building one per
 * call costs more than rendering a row).
 *
 * @example
 * formatDate('2026-11-22T05:00:00Z')
 */
export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '—';
  const locale = currentLocale();
  let f = memo.get(`d:${locale}`) as Intl.DateTimeFormat | undefined;
  if (!f) {
    f = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' });
    memo.set(`d:${locale}`, f);
  }
  return f.format(date);
}

/** Checks a file or folder name against the product's rules; returns a sentence or null. */
export function nameProblem(name: string): string | null {
  if (name.length === 0) return t('name.empty');
  if (name.length > 255) return t('name.tooLong', { length: name.length });
  if (name.includes('/')) return t('name.slash');
  if (name.includes('\0')) return t('name.nul');
  if (name === '.' || name === '..') return t('name.dots');
  return null;
}
