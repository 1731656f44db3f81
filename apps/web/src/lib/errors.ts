import { formatBytes } from '../format';

/** What the user sees for a failure: one sentence, and an id to quote when it is unexpected. */
export interface UserError {
  /** The sentence to show. */
  message: string;
  /** Which known case it is (`'other'` for anything unexpected). */
  kind: UserErrorKind;
  /** Short id, logged to the console with the details (only for `'other'`). */
  id: string | null;
}

export type UserErrorKind =
  | 'invalid_credentials'
  | 'email_taken'
  | 'weak_password'
  | 'invalid_email'
  | 'session_expired'
  | 'offline'
  | 'quota_exceeded'
  | 'too_large'
  | 'name_exists'
  | 'invalid_name'
  | 'link_expired'
  | 'link_revoked'
  | 'link_not_found'
  | 'rate_limited'
  | 'wrong_code'
  | 'code_needed'
  | 'passkey_cancelled'
  | 'passkey_refused'
  | 'passkey_unsupported'
  | 'passkey_exists'
  | 'passkey_limit'
  | 'last_sign_in_method'
  | 'identity_linked'
  | 'linking_off'
  | 'provider_email_unverified'
  | 'signup_disabled'
  | 'sign_in_cancelled'
  | SharingErrorKind
  | 'other';

/** Refusals of sharing and of what a role allows (backend/SHARING.md), by hint. */
const SHARING: Record<string, string> = {
  not_owner: 'Only the owner of this item can do that.',
  share_self: 'This is your own item: you already have access.',
  item_deleted: 'This item is being deleted, so it cannot be shared or given away.',
  upload_incomplete: 'This file has not finished uploading. Share it when the upload is done.',
  not_editor:
    'You can only do that where you are an Editor (ownership goes to an Editor of the item).',
  no_access: 'You no longer have access to this item.',
  other_owner:
    'Items cannot move between people’s files. Move them within the same owner’s folders.',
  owner_only: 'Only the owner of this item can do that.',
};
export type SharingErrorKind =
  | 'not_owner'
  | 'share_self'
  | 'item_deleted'
  | 'upload_incomplete'
  | 'not_editor'
  | 'no_access'
  | 'other_owner'
  | 'owner_only'
  | 'owner_quota';

interface ErrorFields {
  status: number | null;
  code: string;
  message: string;
  hint: string;
  details: string;
  body: Record<string, unknown> | null;
}

const QUOTA_DETAIL = /used (\d+) of (\d+) bytes/;

function fields(error: unknown): ErrorFields {
  const e = (typeof error === 'object' && error !== null ? error : {}) as Record<string, unknown>;
  const body =
    typeof e.body === 'object' && e.body !== null ? (e.body as Record<string, unknown>) : null;
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  const details = typeof e.details === 'string' ? e.details : JSON.stringify(e.details ?? '');
  return {
    status: typeof e.status === 'number' ? e.status : null,
    code: text(body?.error) || text(e.code) || text(e.error),
    message: text(e.message),
    hint: text(e.hint),
    details,
    body,
  };
}

function shortId(): string {
  const bytes = new Uint8Array(4);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

const known = (kind: UserErrorKind, message: string): UserError => ({ kind, message, id: null });

/**
 * Maps any backend, network or programming error to one sentence for people. Unknown
 * errors become "Something went wrong" with a short id; the details go to the console under
 * that id. No raw backend text or JSON reaches the screen.
 *
 * @example
 * const { message } = toUserError(error, { online: navigator.onLine });
 */
export function toUserError(
  error: unknown,
  context: { online?: boolean; log?: (...args: unknown[]) => void } = {},
): UserError {
  const f = fields(error);
  const lower = `${f.code} ${f.message}`.toLowerCase();
  const sharing = SHARING[f.hint];
  if (sharing) return known(f.hint as SharingErrorKind, sharing);
  if (f.hint === 'invalid_email') return known('invalid_email', 'Enter a valid email address.');
  if (f.hint === 'quota_exceeded' && f.details.includes('owner_quota')) {
    return known(
      'owner_quota',
      f.details.includes('new owner')
        ? 'The new owner does not have enough storage left for this item.'
        : 'The owner’s storage is full, so nothing more can be added here.',
    );
  }
  if (f.code === 'invalid_credentials' || lower.includes('invalid login credentials')) {
    return known('invalid_credentials', 'Incorrect email or password.');
  }
  if (f.code === 'user_already_exists' || f.code === 'email_exists') {
    return known('email_taken', 'An account with this email already exists. Sign in instead.');
  }
  if (f.code === 'weak_password') {
    return known('weak_password', 'Choose a stronger password: at least 8 characters.');
  }
  if (
    f.code === 'email_address_invalid' ||
    (f.code === 'validation_failed' && lower.includes('email'))
  ) {
    return known('invalid_email', 'Enter a valid email address.');
  }
  if (
    f.code === 'mfa_verification_failed' ||
    f.code === 'mfa_challenge_expired' ||
    f.code === 'mfa_ip_address_mismatch'
  ) {
    return known('wrong_code', 'That code is not right. Enter the code your app shows now.');
  }
  // Passkeys: the browser's prompt (DOM error names) and the server's WebAuthn checks.
  if (f.code === 'NotAllowedError' || f.code === 'AbortError') {
    return known('passkey_cancelled', 'The passkey prompt was closed before it finished.');
  }
  if (f.code === 'InvalidStateError' || f.code === 'webauthn_credential_exists') {
    return known('passkey_exists', 'This device already has a passkey for your account.');
  }
  if (
    f.code === 'webauthn_unsupported' ||
    f.code === 'SecurityError' ||
    f.code === 'NotSupportedError' ||
    f.code === 'passkey_disabled'
  ) {
    return known('passkey_unsupported', 'Passkeys cannot be used in this browser or on this site.');
  }
  if (f.code.startsWith('webauthn_')) {
    return known(
      'passkey_refused',
      'That passkey was not accepted. Try again, or sign in with your email and password.',
    );
  }
  if (f.code === 'too_many_passkeys') {
    return known(
      'passkey_limit',
      'You have as many passkeys as an account can have. Remove one first.',
    );
  }
  if (f.code === 'insufficient_aal') {
    return known('code_needed', 'Enter a code from your authenticator app first.');
  }
  // Sign-in with providers and linked sign-in methods.
  if (f.code === 'single_identity_not_deletable') {
    return known(
      'last_sign_in_method',
      'This is your only way to sign in, so it cannot be removed. Link another one first.',
    );
  }
  if (f.code === 'identity_already_exists') {
    return known('identity_linked', 'That account is already linked to a Drive account.');
  }
  if (f.code === 'manual_linking_disabled') {
    return known('linking_off', 'Linking other sign-in methods is turned off for this Drive.');
  }
  if (f.code === 'provider_email_needs_verification' || lower.includes('unverified email with')) {
    return known(
      'provider_email_unverified',
      lower.includes('has been sent')
        ? 'Your email address is not verified yet. Open the link we just emailed you, then sign in again.'
        : 'Your email address is not verified with that provider yet. Verify it there, then sign in again.',
    );
  }
  if (f.code === 'signup_disabled') {
    return known('signup_disabled', 'New accounts cannot be created right now.');
  }
  if (f.code === 'access_denied') return known('sign_in_cancelled', 'Sign-in was cancelled.');
  if (
    f.code === 'session_not_found' ||
    f.code === 'session_expired' ||
    f.code === 'refresh_token_not_found' ||
    f.code === 'refresh_token_already_used' ||
    f.code === 'PGRST301' ||
    f.code === 'PGRST303' ||
    (f.status === 401 && lower.includes('jwt'))
  ) {
    return known('session_expired', 'Your session has expired. Sign in again — nothing was lost.');
  }
  if (
    f.code === 'over_request_rate_limit' ||
    f.code === 'over_email_send_rate_limit' ||
    f.status === 429
  ) {
    return known('rate_limited', 'Too many attempts. Wait a minute and try again.');
  }
  if (f.hint === 'quota_exceeded' || lower.includes('quota')) {
    const m = QUOTA_DETAIL.exec(f.details);
    const usage = m
      ? ` You are using ${formatBytes(Number(m[1]))} of ${formatBytes(Number(m[2]))}.`
      : '';
    return known('quota_exceeded', `Not enough storage left for this file.${usage}`);
  }
  if (
    f.code === 'EntityTooLarge' ||
    f.status === 413 ||
    lower.includes('too large') ||
    (f.code === '23514' && lower.includes('size'))
  ) {
    return known('too_large', 'This file is too large: the limit is 5 GB per file.');
  }
  if (f.code === '23505' || f.code === 'KeyAlreadyExists' || f.code === 'ResourceAlreadyExists') {
    return known('name_exists', 'An item with this name already exists here.');
  }
  if (f.hint === 'invalid_name' || lower.includes('is_valid_name')) {
    return known(
      'invalid_name',
      'Names need 1–255 characters, without “/”, and cannot be “.” or “..”.',
    );
  }
  if (f.code === 'expired') return known('link_expired', 'This link has expired.');
  if (f.code === 'revoked') return known('link_revoked', 'This link has been revoked.');
  if ((f.code === 'not_found' || f.code === 'invalid_request') && f.body)
    return known('link_not_found', 'This link does not exist.');
  if (
    context.online === false ||
    (f.status === 0 && (globalThis.navigator?.onLine ?? true) === false)
  ) {
    return known(
      'offline',
      'You are offline. Uploads are paused and will resume when you are back online.',
    );
  }
  const id = shortId();
  (context.log ?? console.error)(`[Drive error ${id}]`, error);
  return { kind: 'other', id, message: `Something went wrong (error ${id}). Please try again.` };
}
