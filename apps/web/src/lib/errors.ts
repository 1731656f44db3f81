import { formatBytes } from '../format';
import { t } from '../i18n';

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
const SHARING = new Set([
  'not_owner',
  'share_self',
  'item_deleted',
  'upload_incomplete',
  'not_editor',
  'no_access',
  'other_owner',
  'owner_only',
]);
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
  if (SHARING.has(f.hint)) {
    return known(f.hint as SharingErrorKind, t(`error.${f.hint as SharingErrorKind}`));
  }
  if (f.hint === 'invalid_email') return known('invalid_email', t('error.invalid_email'));
  if (f.hint === 'quota_exceeded' && f.details.includes('owner_quota')) {
    return known(
      'owner_quota',
      f.details.includes('new owner') ? t('error.owner_quota_new') : t('error.owner_quota'),
    );
  }
  if (f.code === 'invalid_credentials' || lower.includes('invalid login credentials')) {
    return known('invalid_credentials', t('error.invalid_credentials'));
  }
  if (f.code === 'user_already_exists' || f.code === 'email_exists') {
    return known('email_taken', t('error.email_taken'));
  }
  if (f.code === 'weak_password') {
    return known('weak_password', t('error.weak_password'));
  }
  if (
    f.code === 'email_address_invalid' ||
    (f.code === 'validation_failed' && lower.includes('email'))
  ) {
    return known('invalid_email', t('error.invalid_email'));
  }
  if (
    f.code === 'mfa_verification_failed' ||
    f.code === 'mfa_challenge_expired' ||
    f.code === 'mfa_ip_address_mismatch'
  ) {
    return known('wrong_code', t('error.wrong_code'));
  }
  // Passkeys: the browser's prompt (DOM error names) and the server's WebAuthn checks.
  if (f.code === 'NotAllowedError' || f.code === 'AbortError') {
    return known('passkey_cancelled', t('error.passkey_cancelled'));
  }
  if (f.code === 'InvalidStateError' || f.code === 'webauthn_credential_exists') {
    return known('passkey_exists', t('error.passkey_exists'));
  }
  if (
    f.code === 'webauthn_unsupported' ||
    f.code === 'SecurityError' ||
    f.code === 'NotSupportedError' ||
    f.code === 'passkey_disabled'
  ) {
    return known('passkey_unsupported', t('error.passkey_unsupported'));
  }
  if (f.code.startsWith('webauthn_')) {
    return known('passkey_refused', t('error.passkey_rejected'));
  }
  if (f.code === 'too_many_passkeys') {
    return known('passkey_limit', t('error.passkey_limit'));
  }
  if (f.code === 'insufficient_aal') {
    return known('code_needed', t('error.code_needed'));
  }
  // Sign-in with providers and linked sign-in methods.
  if (f.code === 'single_identity_not_deletable') {
    return known('last_sign_in_method', t('error.last_identity'));
  }
  if (f.code === 'identity_already_exists') {
    return known('identity_linked', t('error.identity_linked'));
  }
  if (f.code === 'manual_linking_disabled') {
    return known('linking_off', t('error.linking_off'));
  }
  if (f.code === 'provider_email_needs_verification' || lower.includes('unverified email with')) {
    return known(
      'provider_email_unverified',
      lower.includes('has been sent')
        ? t('error.email_unverified')
        : t('error.email_unverified_provider'),
    );
  }
  if (f.code === 'signup_disabled') {
    return known('signup_disabled', t('error.signup_disabled'));
  }
  if (f.code === 'access_denied') return known('sign_in_cancelled', t('error.sign_in_cancelled'));
  if (
    f.code === 'session_not_found' ||
    f.code === 'session_expired' ||
    f.code === 'refresh_token_not_found' ||
    f.code === 'refresh_token_already_used' ||
    f.code === 'PGRST301' ||
    f.code === 'PGRST303' ||
    (f.status === 401 && lower.includes('jwt'))
  ) {
    return known('session_expired', t('error.session_expired'));
  }
  if (
    f.code === 'over_request_rate_limit' ||
    f.code === 'over_email_send_rate_limit' ||
    f.status === 429
  ) {
    return known('rate_limited', t('error.rate_limited'));
  }
  if (f.hint === 'quota_exceeded' || lower.includes('quota')) {
    const m = QUOTA_DETAIL.exec(f.details);
    return known(
      'quota_exceeded',
      m
        ? t('error.quota_usage', {
            used: formatBytes(Number(m[1])),
            quota: formatBytes(Number(m[2])),
          })
        : t('error.quota_exceeded'),
    );
  }
  if (
    f.code === 'EntityTooLarge' ||
    f.status === 413 ||
    lower.includes('too large') ||
    (f.code === '23514' && lower.includes('size'))
  ) {
    return known('too_large', t('error.too_large'));
  }
  if (f.code === '23505' || f.code === 'KeyAlreadyExists' || f.code === 'ResourceAlreadyExists') {
    return known('name_exists', t('error.name_exists'));
  }
  if (f.hint === 'invalid_name' || lower.includes('is_valid_name')) {
    return known('invalid_name', t('error.invalid_name'));
  }
  if (f.code === 'expired') return known('link_expired', t('error.link_expired'));
  if (f.code === 'revoked') return known('link_revoked', t('error.link_revoked'));
  if ((f.code === 'not_found' || f.code === 'invalid_request') && f.body)
    return known('link_not_found', t('error.link_not_found'));
  if (
    context.online === false ||
    (f.status === 0 && (globalThis.navigator?.onLine ?? true) === false)
  ) {
    return known('offline', t('error.offline'));
  }
  const id = shortId();
  (context.log ?? console.error)(`[Drive error ${id}]`, error);
  return { kind: 'other', id, message: t('error.other', { id }) };
}
