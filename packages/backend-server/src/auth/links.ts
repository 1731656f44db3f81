import { randomUUID } from 'node:crypto';
import type { Queryable } from '../db/index';
import type { MailType } from '../mail/index';
import type { AuthContext } from './context';
import { generateOtp, randomCode, tokenHash } from './crypto';
import { badRequest } from './errors';

/** Prefix of link tokens that belong to a PKCE flow. */
export const PKCE_PREFIX = 'pkce_';

function globToRegExp(glob: string): RegExp {
  const escaped = glob
    .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
    .replace(/\*\*?/g, (m) => (m === '**' ? '.*' : '[^/]*'));
  return new RegExp(`^${escaped}$`);
}

/**
 * Whether `url` is a place flows may send the browser: the site URL's host (any port or
 * path, as the hosted service allows) or a match of the redirect allow list.
 */
export function isAllowedRedirect(ctx: AuthContext, url: string): boolean {
  if (!URL.canParse(url)) return false;
  const site = ctx.config.auth.siteUrl ?? ctx.config.url;
  const hosts = new Set([new URL(site).hostname, new URL(ctx.config.url).hostname]);
  if (hosts.has(new URL(url).hostname)) return true;
  return ctx.config.auth.redirectUrls.some((g) => globToRegExp(g).test(url));
}

/** Where a flow may redirect: `requested` when allowed (site URL's host or the allow list). */
export function redirectTarget(ctx: AuthContext, requested: string | undefined | null): string {
  const site = ctx.config.auth.siteUrl ?? ctx.config.url;
  return requested && isAllowedRedirect(ctx, requested) ? requested : site;
}

/** PKCE parameters of a request, checked: both or neither. */
export function pkceParams(body: { code_challenge?: string; code_challenge_method?: string }) {
  const challenge = body.code_challenge ?? '';
  const method = (body.code_challenge_method ?? '').toLowerCase();
  if (!challenge && !method) return null;
  if (!challenge || !method) {
    throw badRequest(
      'validation_failed',
      'PKCE flow requires code_challenge_method and code_challenge',
    );
  }
  if (method !== 's256' && method !== 'plain') {
    throw badRequest('validation_failed', 'code challenge method not supported');
  }
  if (challenge.length < 43 || challenge.length > 128) {
    throw badRequest('validation_failed', 'code challenge has to be between 43 and 128 characters');
  }
  return { challenge, method };
}

/** Records a PKCE flow for a user; its auth code is handed out when the link is followed. */
export async function createFlowState(
  q: Queryable,
  userId: string,
  pkce: { challenge: string; method: string },
  authMethod: string,
): Promise<void> {
  await q.query(
    `insert into auth.flow_state (id, user_id, auth_code, code_challenge_method, code_challenge,
       provider_type, created_at, updated_at, authentication_method)
     values ($1, $2, $3, $4::auth.code_challenge_method, $5, 'email', now(), now(), $6)`,
    [randomUUID(), userId, randomCode(), pkce.method, pkce.challenge, authMethod],
  );
}

/** A one-time code for an address, its stored hash and the verification link. */
export interface IssuedToken {
  otp: string;
  hash: string;
  link: string;
}

/** Makes a one-time code and the `/verify` link that carries its hash. */
export function issueToken(
  ctx: AuthContext,
  address: string,
  type: MailType | 'signup',
  redirectTo: string,
  pkce: boolean,
): IssuedToken {
  const otp = generateOtp();
  const hash = tokenHash(address, otp);
  const verifyType =
    type === 'email_change_current' || type === 'email_change_new' ? 'email_change' : type;
  const params = new URLSearchParams({
    token: pkce ? PKCE_PREFIX + hash : hash,
    type: verifyType,
    redirect_to: redirectTo,
  });
  return { otp, hash, link: `${ctx.config.url}/auth/v1/verify?${params.toString()}` };
}
