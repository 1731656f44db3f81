import type { SupabaseClient } from '@supabase/supabase-js';
import { Secret, TOTP } from 'otpauth';
import type { RunningServer } from '../../src/server';
import { client, uniqueEmail } from './support';

/** The current authenticator-app code of a base32 secret (what a phone app shows). */
export const totpCode = (secret: string, at = Date.now()) =>
  new TOTP({
    secret: Secret.fromBase32(secret),
    algorithm: 'SHA1',
    digits: 6,
    period: 30,
  }).generate({ timestamp: at });

/** A six-digit code that is none of the codes a secret accepts now (the step before, now, after). */
export function wrongCode(secret: string): string {
  const valid = new Set([-30_000, 0, 30_000].map((d) => totpCode(secret, Date.now() + d)));
  for (let n = 0; ; n++) {
    const candidate = String(n).padStart(6, '0');
    if (!valid.has(candidate)) return candidate;
  }
}

/** A signed-in supabase-js client of a new user (password sign-in: aal1). */
export async function signedInUser(server: RunningServer, tag = 'mfa') {
  const supabase = client(server);
  const email = uniqueEmail(tag);
  const password = 'mfa-password';
  const { data, error } = await supabase.auth.signUp({ email, password });
  if (error || !data.user) throw error ?? new Error('no user');
  return { supabase, email, password, userId: data.user.id };
}

/** Enrolls and verifies a TOTP factor; the client's session is then aal2. */
export async function withVerifiedTotp(supabase: SupabaseClient) {
  const enrolled = await supabase.auth.mfa.enroll({ factorType: 'totp' });
  if (enrolled.error) throw enrolled.error;
  const { id, totp } = enrolled.data;
  const verified = await supabase.auth.mfa.challengeAndVerify({
    factorId: id,
    code: totpCode(totp.secret),
  });
  if (verified.error) throw verified.error;
  return { factorId: id, secret: totp.secret, session: verified.data };
}
