/** Whether the last sign-out was asked for by the user (else a lost session is "expired"). */
let byUser = true;

/** Call before signing out on purpose. */
export function markSignOutByUser(): void {
  byUser = true;
}

/** Call once signed in: a later loss of the session is an expiry unless marked. */
export function markSignedIn(): void {
  byUser = false;
}

export function wasSignedOutByUser(): boolean {
  return byUser;
}
