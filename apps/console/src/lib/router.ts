/**
 * A small router for the console's few screens: the path below `/_console/` is the state,
 * changed with `navigate` (history API) and read with `usePath`.
 */
import { createElement, type MouseEvent, type ReactNode, useSyncExternalStore } from 'react';

export const BASE = '/_console/';
const EVENT = 'console:navigate';

const current = () =>
  location.pathname.startsWith(BASE) ? decodeURI(location.pathname.slice(BASE.length)) : '';

function subscribe(onChange: () => void) {
  window.addEventListener('popstate', onChange);
  window.addEventListener(EVENT, onChange);
  return () => {
    window.removeEventListener('popstate', onChange);
    window.removeEventListener(EVENT, onChange);
  };
}

/** The path below the console's base, e.g. `tables/public/todos`. */
export function usePath(): string {
  return useSyncExternalStore(subscribe, current, () => '');
}

/** Goes to a path below the base (`replace` keeps the history entry). */
export function navigate(to: string, replace = false): void {
  const url = `${BASE}${encodeURI(to)}`;
  if (replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  window.dispatchEvent(new Event(EVENT));
}

/** A link to a console path, followed without reloading the page. */
export function Link(props: {
  to: string;
  children: ReactNode;
  className?: string;
  'aria-current'?: 'page' | undefined;
}) {
  const { to, ...rest } = props;
  return createElement('a', {
    ...rest,
    href: `${BASE}${encodeURI(to)}`,
    onClick: (event: MouseEvent) => {
      if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
      event.preventDefault();
      navigate(to);
    },
  });
}
