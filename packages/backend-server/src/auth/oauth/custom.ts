/**
 * Generic OpenID Connect providers (`custom:<id>`), as GoTrue's custom OIDC providers: the
 * endpoints from the issuer's discovery, the user from the verified ID token (audience: one
 * of the configured client ids; nonce: the one sent) or else from the userinfo endpoint,
 * read into the standard claims.
 */
import type { ResolvedProvider } from '../../config/external-providers';
import { getJson } from './http';
import type { NamedDefinition } from './named';
import type { OidcCache } from './oidc';
import { verifyIdToken } from './oidc';
import { claimsRecord, type UserProvidedData } from './types';

const issuerOf = (cfg: ResolvedProvider, oidc: OidcCache) =>
  oidc.get(cfg.issuer ?? '', cfg.discoveryUrl);

/** Claims of a generic ID token or userinfo answer → emails and identity claims. */
export function genericUserData(raw: Record<string, unknown>): UserProvidedData {
  const claims = claimsRecord(raw);
  const email = typeof raw.email === 'string' ? raw.email : '';
  return {
    emails: email ? [{ email, verified: raw.email_verified === true, primary: true }] : [],
    claims,
  };
}

export const customOidc: NamedDefinition = {
  scopes: [],
  oidc: true,
  async endpoints(cfg, oidc) {
    const { metadata } = await issuerOf(cfg, oidc);
    return { authorize: metadata.authorization_endpoint, token: metadata.token_endpoint };
  },
  async profile(tokens, { cfg, oidc, nonce }) {
    const issuer = await issuerOf(cfg, oidc);
    if (tokens.idToken) {
      const token = await verifyIdToken(issuer, tokens.idToken);
      if (!token.audience.some((a) => cfg.clientIds.includes(a))) {
        throw new Error(
          `token audience ${JSON.stringify(token.audience)} does not match any acceptable client ID`,
        );
      }
      if (nonce && token.nonce !== nonce) throw new Error('oidc: ID token nonce does not match');
      return token.claims;
    }
    const endpoint = issuer.metadata.userinfo_endpoint;
    if (!endpoint) throw new Error('no ID token or userinfo endpoint available');
    return getJson<Record<string, unknown>>(endpoint, tokens.accessToken);
  },
  map: (raw) => genericUserData(raw as Record<string, unknown>),
  emulate(u, cfg) {
    return {
      iss: cfg.issuer,
      sub: u.sub,
      email: u.email,
      email_verified: u.emailVerified,
      name: u.name,
      picture: u.avatarUrl,
    };
  },
};
