/** Whether the last sign-out was asked for by the user (else a lost session is "expired"). */
let byUser = true;

const signOutListeners = new Set<() => void>();

/** Call before signing out on purpose (tells every listener of {@link onSignOutByUser}). */
export function markSignOutByUser(): void {
  byUser = true;
  for (const listener of signOutListeners) listener();
}

/** Runs `listener` whenever the user signs out on purpose; returns a function to stop. */
export function onSignOutByUser(listener: () => void): () => void {
  signOutListeners.add(listener);
  return () => signOutListeners.delete(listener);
}

/** Call once signed in: a later loss of the session is an expiry unless marked. */
export function markSignedIn(): void {
  byUser = false;
}

export function wasSignedOutByUser(): boolean {
  return byUser;
}
