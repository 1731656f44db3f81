import { useState } from 'react';

export type ViewMode = 'list' | 'grid';
const KEY = 'drive:view';

/** List or grid, remembered in this browser. */
export function useViewMode(): [ViewMode, (mode: ViewMode) => void] {
  const [mode, setMode] = useState<ViewMode>(() => {
    try {
      return localStorage.getItem(KEY) === 'grid' ? 'grid' : 'list';
    } catch {
      return 'list';
    }
  });
  return [
    mode,
    (next) => {
      setMode(next);
      try {
        localStorage.setItem(KEY, next);
      } catch {
        // Private mode without storage: the choice lasts for this page.
      }
    },
  ];
}
