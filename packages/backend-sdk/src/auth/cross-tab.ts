/**
 * Cross-tab pieces of the session manager: the message that carries a new session (or a
 * sign-out) to the other tabs, the token fingerprint in the names of rotation marks, and
 * the wait for another tab's session.
 */
import type { Timers } from '../timers';
import type { AuthChangeEvent, Session } from './types';

/** A session change one tab tells the others. */
export interface Broadcast {
  event: AuthChangeEvent;
  session: Session | null;
}

/** A short, stable fingerprint of a token for lock names (FNV-1a; not a secret). */
export const fingerprint = (token: string): string => {
  let h = 0x811c9dc5;
  for (let i = 0; i < token.length; i++) h = Math.imul(h ^ token.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(36);
};

/** Resolves once one of `arrivals` is called (another tab's session came) or after `ms`. */
export const waitForArrival = (
  arrivals: Set<() => void>,
  timers: Timers,
  ms: number,
): Promise<void> =>
  new Promise<void>((resolve) => {
    const wake = () => {
      arrivals.delete(wake);
      timers.clearTimeout(timer);
      resolve();
    };
    const timer = timers.setTimeout(wake, ms);
    arrivals.add(wake);
  });
