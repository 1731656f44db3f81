import { beforeAll, describe, expect, it } from 'vitest';
import { loadLocale } from '../../../src/i18n';
import { toUserError } from '../../../src/lib/errors';

beforeAll(() => loadLocale('en'));

const quiet = { log: () => {} };

describe('toUserError', () => {
  it.each([
    [
      { status: 400, code: 'invalid_credentials', message: 'Invalid login credentials' },
      'invalid_credentials',
    ],
    [
      { status: 422, code: 'user_already_exists', message: 'User already registered' },
      'email_taken',
    ],
    [{ status: 422, code: 'email_exists' }, 'email_taken'],
    [{ status: 422, code: 'weak_password' }, 'weak_password'],
    [{ status: 400, code: 'email_address_invalid' }, 'invalid_email'],
    [{ status: 401, code: 'PGRST303', message: 'JWT expired' }, 'session_expired'],
    [{ status: 403, code: 'session_not_found' }, 'session_expired'],
    [
      { status: 409, code: '23505', message: 'duplicate key value violates unique constraint' },
      'name_exists',
    ],
    [{ status: 413, code: 'EntityTooLarge' }, 'too_large'],
    [
      { status: 410, code: '', body: { error: 'expired', message: 'This link has expired.' } },
      'link_expired',
    ],
    [{ status: 410, body: { error: 'revoked' } }, 'link_revoked'],
    [{ status: 404, body: { error: 'not_found' } }, 'link_not_found'],
    [{ status: 429, code: 'over_request_rate_limit' }, 'rate_limited'],
    [{ status: 422, code: 'mfa_verification_failed' }, 'wrong_code'],
    [{ status: 422, code: 'mfa_challenge_expired' }, 'wrong_code'],
    [{ status: 401, code: 'insufficient_aal' }, 'code_needed'],
    [{ status: 0, code: 'NotAllowedError' }, 'passkey_cancelled'],
    [{ status: 0, code: 'InvalidStateError' }, 'passkey_exists'],
    [{ status: 422, code: 'webauthn_credential_exists' }, 'passkey_exists'],
    [{ status: 0, code: 'webauthn_unsupported' }, 'passkey_unsupported'],
    [{ status: 0, code: 'SecurityError' }, 'passkey_unsupported'],
    [{ status: 400, code: 'webauthn_verification_failed' }, 'passkey_refused'],
    [{ status: 400, code: 'webauthn_challenge_expired' }, 'passkey_refused'],
    [{ status: 422, code: 'too_many_passkeys' }, 'passkey_limit'],
    [{ status: 422, code: 'single_identity_not_deletable' }, 'last_sign_in_method'],
    [{ status: 422, code: 'identity_already_exists' }, 'identity_linked'],
    [{ status: 404, code: 'manual_linking_disabled' }, 'linking_off'],
    [
      {
        code: 'provider_email_needs_verification',
        message:
          'Unverified email with github. A confirmation email has been sent to your github email',
      },
      'provider_email_unverified',
    ],
    [
      { code: 'signup_disabled', message: 'Signups not allowed for this instance' },
      'signup_disabled',
    ],
    // A provider's own refusal (the user pressed Cancel there): no error_code.
    [{ code: 'access_denied', message: 'The user denied the request' }, 'sign_in_cancelled'],
  ])('%j → %s', (error, kind) => {
    expect(toUserError(error, quiet).kind).toBe(kind);
  });

  it('shows the usage with a quota error', () => {
    const e = toUserError(
      {
        code: 'P0001',
        hint: 'quota_exceeded',
        details: 'used 10737418000 of 10737418240 bytes; this file needs 5000',
      },
      quiet,
    );
    expect(e.kind).toBe('quota_exceeded');
    expect(e.message).toContain('10 GB of 10 GB');
  });

  it('says offline when the network is down', () => {
    expect(
      toUserError({ status: 0, message: 'Failed to fetch' }, { ...quiet, online: false }).kind,
    ).toBe('offline');
  });

  it('hides anything else behind a short id and logs the details under it', () => {
    const logged: unknown[][] = [];
    const raw = { status: 500, message: '{"stack":"at SELECT secret"}' };
    const e = toUserError(raw, { log: (...a) => logged.push(a) });
    expect(e.kind).toBe('other');
    expect(e.id).toMatch(/^[0-9a-f]{8}$/);
    expect(e.message).toBe(`Something went wrong (error ${e.id}). Please try again.`);
    expect(e.message).not.toContain('SELECT');
    expect(logged).toEqual([[`[Drive error ${e.id}]`, raw]]);
  });
});

describe('toUserError for sharing', () => {
  it.each([
    [{ code: '42501', hint: 'not_owner' }, 'not_owner', 'Only the owner of this item can do that.'],
    [{ code: '22023', hint: 'invalid_email' }, 'invalid_email', 'Enter a valid email address.'],
    [{ code: '22023', hint: 'share_self' }, 'share_self', /your own item/],
    [{ code: '23503', hint: 'item_deleted' }, 'item_deleted', /being deleted/],
    [{ code: '23514', hint: 'upload_incomplete' }, 'upload_incomplete', /finished uploading/],
    [{ code: '22023', hint: 'not_editor' }, 'not_editor', /Editor/],
    [{ code: '42501', hint: 'no_access' }, 'no_access', 'You no longer have access to this item.'],
    [{ code: '42501', hint: 'other_owner' }, 'other_owner', /between people’s files/],
    [
      { code: 'P0001', hint: 'quota_exceeded', details: 'owner_quota: the new owner has no room' },
      'owner_quota',
      /new owner does not have enough storage/,
    ],
    [
      { code: 'P0001', hint: 'quota_exceeded', details: 'owner_quota: the owner of this folder' },
      'owner_quota',
      /owner’s storage is full/,
    ],
  ])('%o → %s', (error, kind, message) => {
    const mapped = toUserError(error, quiet);
    expect(mapped.kind).toBe(kind);
    expect(mapped.message).toMatch(message);
  });

  it('keeps my own quota message for my own uploads', () => {
    expect(toUserError({ hint: 'quota_exceeded', details: 'used 5 of 10 bytes' }, quiet).kind).toBe(
      'quota_exceeded',
    );
  });
});
