import { i18n } from '@lingui/core';
import { useSyncExternalStore } from 'react';
import type { MessageKey } from './messages/en';

/**
 * Drive's languages: every user-visible string goes through one message catalogue per
 * language (`messages/<locale>.ts`, ICU MessageFormat, read by `@lingui/core`). Each catalogue is
 * its own lazy chunk, compiled once when loaded; dates, numbers and sizes use `Intl`.
 */
export const LOCALES = { en: 'English', ar: 'العربية' } as const;
export type Locale = keyof typeof LOCALES;
const RTL = new Set<Locale>(['ar']);
const KEY = 'drive.locale';

const isLocale = (v: unknown): v is Locale => typeof v === 'string' && v in LOCALES;

/** The stored choice, else the browser's first supported language, else English. */
export function initialLocale(): Locale {
  let stored: string | null = null;
  try {
    stored = localStorage.getItem(KEY);
  } catch {}
  if (isLocale(stored)) return stored;
  for (const tag of navigator.languages ?? [navigator.language]) {
    const base = tag.toLowerCase().split('-')[0];
    if (isLocale(base)) return base;
  }
  return 'en';
}

/** The active language (English until the first catalogue is loaded). */
export function currentLocale(): Locale {
  return isLocale(i18n.locale) ? i18n.locale : 'en';
}

/** Loads a language's catalogue (its own chunk), activates it and sets `<html lang dir>`. */
export async function loadLocale(locale: Locale): Promise<void> {
  const [{ compileMessage }, catalogue] = await Promise.all([
    import('@lingui/message-utils/compileMessage'),
    locale === 'ar' ? import('./messages/ar') : import('./messages/en'),
  ]);
  const compiled: Record<string, ReturnType<typeof compileMessage>> = {};
  for (const [id, text] of Object.entries(catalogue.default)) compiled[id] = compileMessage(text);
  i18n.load(locale, compiled);
  i18n.activate(locale);
  if (typeof document === 'undefined') return;
  document.documentElement.lang = locale;
  document.documentElement.dir = RTL.has(locale) ? 'rtl' : 'ltr';
}

/**
 * Switches the language without a reload and keeps the choice in this browser.
 *
 * @example
 * await setLocale('ar') // the UI reads Arabic, `<html dir="rtl">`
 */
export async function setLocale(locale: Locale): Promise<void> {
  try {
    localStorage.setItem(KEY, locale);
  } catch {}
  await loadLocale(locale);
}

/**
 * A message of the active catalogue, with its ICU placeholders filled.
 *
 * @example
 * t('trash.emptyConfirm', { count: 3 }) // 'Delete all 3 items in the Trash forever? …'
 */
export function t(id: MessageKey, values?: Record<string, unknown>): string {
  return i18n._(id, values);
}

const subscribe = (onChange: () => void) => i18n.on('change', onChange);

/** The active locale, re-rendering the caller when it changes. */
export function useLocale(): Locale {
  return useSyncExternalStore(subscribe, currentLocale);
}
