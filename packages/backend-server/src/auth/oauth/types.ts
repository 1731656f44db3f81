/**
 * What an external provider tells about a user, in GoTrue's terms: the emails it knows (with
 * their verification) and the claims that become the identity's `identity_data`.
 */

/** One email of the user at the provider. */
export interface ProviderEmail {
  email: string;
  verified: boolean;
  primary: boolean;
}

/**
 * The claims kept as `identity_data` (GoTrue's `provider.Claims`): standard OIDC claims plus
 * the legacy `full_name`, `avatar_url`, `provider_id`, `user_name`. Empty values are left out,
 * except `email_verified` and `phone_verified`, which are always present.
 */
export type Claims = Record<string, unknown> & { sub: string };

/** A user as a provider describes them. */
export interface UserProvidedData {
  emails: ProviderEmail[];
  claims: Claims;
}

/** The tokens of a code exchange. */
export interface ProviderTokens {
  accessToken: string;
  refreshToken: string;
  idToken: string | null;
  /** Set by the emulated provider: the user picked on its page. */
  emulated?: EmulatedUser;
}

/** Input of the emulated sign-in page: who signs in. */
export interface EmulatedUser {
  /** The provider's user id (`sub`). */
  sub: string;
  email: string;
  emailVerified: boolean;
  name: string;
  avatarUrl: string;
}

const CLAIM_ORDER = [
  'iss',
  'sub',
  'aud',
  'iat',
  'exp',
  'name',
  'family_name',
  'given_name',
  'middle_name',
  'nickname',
  'preferred_username',
  'profile',
  'picture',
  'website',
  'gender',
  'birthdate',
  'zoneinfo',
  'locale',
  'updated_at',
  'email',
  'email_verified',
  'phone',
  'phone_verified',
  'custom_claims',
  'full_name',
  'avatar_url',
  'slug',
  'provider_id',
  'user_name',
] as const;

/** Keys of {@link Claims} a generic OIDC token or userinfo answer is read into. */
export const STANDARD_CLAIMS: readonly string[] = CLAIM_ORDER;

/**
 * The claims as GoTrue stores them (`structs.Map` of `provider.Claims`): only its fields,
 * empty strings and zero numbers left out, `email_verified` / `phone_verified` always there.
 */
export function claimsRecord(input: Record<string, unknown>): Claims {
  const out: Record<string, unknown> = {};
  for (const key of CLAIM_ORDER) {
    const v = input[key];
    if (key === 'email_verified' || key === 'phone_verified') {
      out[key] = v === true;
      continue;
    }
    if (v === undefined || v === null || v === '' || v === 0 || v === false) continue;
    if (key === 'aud') {
      const aud = Array.isArray(v) ? v.filter((a) => typeof a === 'string') : [v];
      if (aud.length) out.aud = aud;
      continue;
    }
    if (key === 'custom_claims') {
      if (typeof v === 'object' && !Array.isArray(v) && Object.keys(v as object).length)
        out[key] = v;
      continue;
    }
    if (key === 'iat' || key === 'exp') {
      if (typeof v === 'number') out[key] = v;
      continue;
    }
    if (key === 'updated_at') {
      out[key] = typeof v === 'number' ? new Date(v * 1000).toISOString().replace('.000', '') : v;
      continue;
    }
    if (typeof v === 'string') out[key] = v;
  }
  return out as Claims;
}

/**
 * Picks the email GoTrue records on the identity: the primary one, else the last listed
 * (with its verification); sets `email` and `email_verified` on the claims.
 */
export function withChosenEmail(data: UserProvidedData): Claims {
  let chosen: ProviderEmail | null = null;
  for (const e of data.emails) {
    chosen = e;
    if (e.primary) break;
  }
  const claims: Claims = { ...data.claims, email_verified: chosen?.verified ?? false };
  if (chosen) claims.email = chosen.email;
  if (typeof claims.email === 'string') claims.email = claims.email.toLowerCase();
  return claimsRecord(claims);
}
