/**
 * Light or dark: the system's choice by default, or the one picked in Settings (kept in this
 * browser). `index.html` applies a kept choice before the first paint, so no page flashes in
 * the other theme; this module changes it afterwards.
 */
export type Theme = 'system' | 'light' | 'dark';
export const THEME_KEY = 'drive:theme';

export function storedTheme(): Theme {
  try {
    const value = localStorage.getItem(THEME_KEY);
    return value === 'light' || value === 'dark' ? value : 'system';
  } catch {
    return 'system';
  }
}

/** Shows the page in `theme` (`system`: whatever the system prefers). */
export function applyTheme(theme: Theme, root: HTMLElement = document.documentElement): void {
  if (theme === 'system') delete root.dataset.theme;
  else root.dataset.theme = theme;
}

/** Picks a theme and remembers it in this browser. */
export function setTheme(theme: Theme): void {
  try {
    if (theme === 'system') localStorage.removeItem(THEME_KEY);
    else localStorage.setItem(THEME_KEY, theme);
  } catch {
    // Without storage the choice lasts for this page.
  }
  applyTheme(theme);
}
