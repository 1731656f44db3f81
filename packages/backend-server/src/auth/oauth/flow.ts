/**
 * OAuth flows (GoTrue's flow_state rows): one per `/authorize`, its id the `state` the
 * provider hands back. PKCE flows also carry the app's challenge and the auth code, which the
 * callback binds to the user and `grant_type=pkce` exchanges.
 */
import { randomUUID } from 'node:crypto';
import type { Queryable } from '../../db/index';
import { isUuid } from '../guard';

/** Seconds an OAuth flow may take from `/authorize` to the callback (GoTrue's default). */
export const FLOW_EXPIRY = 300;

export interface NewOAuthFlow {
  provider: string;
  pkce: { challenge: string; method: string } | null;
  referrer: string;
  linkingTargetId: string | null;
  emailOptional: boolean;
}

/** Records a flow; returns its id (the `state`). */
export async function createOAuthFlow(q: Queryable, flow: NewOAuthFlow): Promise<string> {
  const id = randomUUID();
  await q.query(
    `insert into auth.flow_state (id, auth_code, code_challenge_method, code_challenge,
       provider_type, authentication_method, referrer, linking_target_id, email_optional,
       created_at, updated_at)
     values ($1, $2, $3::auth.code_challenge_method, $4, $5, 'oauth', $6, $7, $8, now(), now())`,
    [
      id,
      flow.pkce ? randomUUID() : null,
      flow.pkce?.method ?? null,
      flow.pkce?.challenge ?? null,
      flow.provider,
      flow.referrer,
      flow.linkingTargetId,
      flow.emailOptional,
    ],
  );
  return id;
}

/** Keeps the provider-side secrets of a flow until its callback. */
export async function saveProviderSecrets(
  q: Queryable,
  id: string,
  secrets: { codeVerifier: string | null; nonce: string | null },
): Promise<void> {
  await q.query(
    'update auth.flow_state set provider_code_verifier = $2, provider_nonce = $3 where id = $1',
    [id, secrets.codeVerifier, secrets.nonce],
  );
}

/** A flow as the callback reads it. */
export interface OAuthFlow {
  id: string;
  provider: string;
  pkce: boolean;
  authCode: string | null;
  userId: string | null;
  referrer: string | null;
  linkingTargetId: string | null;
  emailOptional: boolean;
  providerCodeVerifier: string | null;
  providerNonce: string | null;
  expired: boolean;
}

/** The flow of a `state`, or null when there is none (or the state is not a UUID). */
export async function findOAuthFlow(
  q: Queryable,
  state: string,
  lock = false,
): Promise<OAuthFlow | null> {
  if (!isUuid(state)) return null;
  const { rows } = await q.query<OAuthFlow>(
    `select id, provider_type as provider, coalesce(code_challenge, '') <> '' as pkce,
            auth_code as "authCode", user_id as "userId", referrer,
            linking_target_id as "linkingTargetId", email_optional as "emailOptional",
            provider_code_verifier as "providerCodeVerifier", provider_nonce as "providerNonce",
            created_at + make_interval(secs => $2) < now() as expired
     from auth.flow_state where id = $1 and authentication_method = 'oauth'
     ${lock ? 'for update skip locked' : ''}`,
    [state, FLOW_EXPIRY],
  );
  return rows[0] ?? null;
}
