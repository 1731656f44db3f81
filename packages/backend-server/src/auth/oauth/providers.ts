/**
 * The provider behind a name (`github`, `custom:acme`, …) for one flow: its authorize URL,
 * code exchange and user data — a real provider over HTTP, or, with `emulateProviders`, the
 * emulated one (a local page, then the same mapping of the provider's profile).
 */
import { randomBytes } from 'node:crypto';
import type { ResolvedProvider } from '../../config/external-providers';
import type { Queryable } from '../../db/index';
import type { AuthContext } from '../context';
import { s256 } from '../crypto';
import { customOidc } from './custom';
import { authCodeUrl, encodeSorted, exchangeCode } from './http';
import { NAMED, type NamedDefinition } from './named';
import type { EmulatedUser, ProviderTokens, UserProvidedData } from './types';

/** A provider ready for one flow. */
export interface Provider {
  name: string;
  cfg: ResolvedProvider;
  def: NamedDefinition;
  emulated: boolean;
  /**
   * Where the browser goes for the provider's authorize step, and the secrets of the flow to
   * keep until the callback: the PKCE verifier sent to the provider and the nonce (null when
   * not used, or when the app chose its own nonce).
   */
  authorize(state: string, extra: Record<string, string>): Promise<AuthorizeStep>;
  /** The code of the callback → the provider's tokens. */
  exchange(code: string, codeVerifier: string | null): Promise<ProviderTokens>;
  /** The provider's tokens → the user (the ID token's nonce must be `nonce` when set). */
  userData(tokens: ProviderTokens, nonce: string | null): Promise<UserProvidedData>;
}

/** The provider's authorize step. */
export interface AuthorizeStep {
  url: string;
  codeVerifier: string | null;
  nonce: string | null;
}

/** The emulated sign-in page's codes, in the database, so any replica can exchange them. */
export const EMULATOR_CODES_SQL = /* sql */ `
create schema if not exists _auth;
create table if not exists _auth.emulator_codes (
  code text primary key,
  provider text not null,
  "user" jsonb not null,
  expires_at timestamptz not null
);
`;

/** Codes handed out by the emulated sign-in page, for the callback's exchange (5 minutes, once). */
export class EmulatorCodes {
  constructor(private readonly db: Queryable) {}

  async issue(provider: string, user: EmulatedUser): Promise<string> {
    const code = randomBytes(16).toString('hex');
    await this.db.query(
      `with gone as (delete from _auth.emulator_codes where expires_at < now())
       insert into _auth.emulator_codes (code, provider, "user", expires_at)
       values ($1, $2, $3::text::jsonb, now() + interval '5 minutes')`,
      [code, provider, JSON.stringify(user)],
    );
    return code;
  }

  async take(provider: string, code: string): Promise<EmulatedUser | null> {
    const { rows } = await this.db.query<{ user: EmulatedUser; valid: boolean }>(
      `delete from _auth.emulator_codes where code = $1
       returning "user", provider = $2 and expires_at >= now() as valid`,
      [code, provider],
    );
    return rows[0]?.valid ? rows[0].user : null;
  }
}

const secret = () => randomBytes(32).toString('base64url');

/** GoTrue's provider names: one of these that is not configured is "not enabled". */
const GOTRUE_PROVIDERS = new Set([
  'apple',
  'azure',
  'bitbucket',
  'discord',
  'facebook',
  'figma',
  'fly',
  'github',
  'gitlab',
  'google',
  'kakao',
  'keycloak',
  'linkedin',
  'linkedin_oidc',
  'notion',
  'snapchat',
  'spotify',
  'slack',
  'slack_oidc',
  'twitch',
  'twitter',
  'x',
  'vercel_marketplace',
  'workos',
  'zoom',
]);

const definitionOf = (cfg: ResolvedProvider): NamedDefinition =>
  cfg.kind === 'oidc' ? customOidc : NAMED[cfg.kind];

/**
 * The configured provider `name` for a flow, or an Error with GoTrue's reason ("Provider x
 * could not be found", "provider is not enabled", "missing OAuth client ID", …).
 */
export function loadProvider(ctx: AuthContext, rawName: string, scopes = ''): Provider {
  const name = rawName.toLowerCase();
  const external = ctx.config.auth.external;
  const cfg = external.providers.get(name);
  if (!cfg) {
    if (name.startsWith('custom:')) throw new Error(`custom provider ${name} not found`);
    if (GOTRUE_PROVIDERS.has(name)) throw new Error('provider is not enabled');
    throw new Error(`Provider ${name} could not be found`);
  }
  if (!cfg.enabled) {
    throw new Error(
      name.startsWith('custom:')
        ? `custom provider ${name} is disabled`
        : 'provider is not enabled',
    );
  }
  const emulated = external.emulate;
  if (!emulated) {
    if (cfg.clientIds.length === 0) throw new Error('missing OAuth client ID');
    if (!cfg.secret) throw new Error('missing OAuth secret');
  }
  const def = definitionOf(cfg);
  const redirectUri = cfg.redirectUri ?? `${ctx.config.url}/auth/v1/callback`;
  const requested =
    cfg.kind === 'oidc' ? scopes.split(/\s+/).filter(Boolean) : scopes ? scopes.split(',') : [];
  let scopeList: string[];
  if (cfg.kind === 'oidc') {
    const chosen = requested.length ? requested : cfg.scopes;
    scopeList = chosen.includes('openid') ? chosen : ['openid', ...chosen];
  } else {
    scopeList = [...def.scopes, ...requested];
  }
  const pkce = cfg.kind === 'oidc' && cfg.pkce;
  return {
    name,
    cfg,
    def,
    emulated,
    async authorize(state, extra) {
      if (emulated) {
        const url = `${ctx.config.url}/auth/v1/emulator?${encodeSorted({ provider: name, state })}`;
        return { url, codeVerifier: null, nonce: null };
      }
      const endpoints = await def.endpoints(cfg, ctx.oidc);
      const params: Record<string, string> = { ...extra };
      const nonce = def.oidc && !('nonce' in extra) ? secret() : null;
      if (nonce) params.nonce = nonce;
      const codeVerifier = pkce ? secret() : null;
      if (codeVerifier) {
        params.code_challenge = s256(codeVerifier);
        params.code_challenge_method = 'S256';
      }
      const url = authCodeUrl(
        endpoints.authorize,
        { clientId: cfg.clientIds[0] ?? '', redirectUri, scopes: scopeList, state },
        params,
      );
      return { url, codeVerifier, nonce };
    },
    async exchange(code, codeVerifier) {
      if (emulated) {
        const user = await ctx.emulatorCodes.take(name, code);
        if (!user) throw new Error('the emulated provider does not know this code');
        return { accessToken: `emulated-${code}`, refreshToken: '', idToken: null, emulated: user };
      }
      const endpoints = await def.endpoints(cfg, ctx.oidc);
      return exchangeCode(endpoints.token, {
        clientId: cfg.clientIds[0] ?? '',
        secret: cfg.secret,
        code,
        redirectUri,
        codeVerifier: codeVerifier ?? undefined,
      });
    },
    async userData(tokens, nonce) {
      const raw = tokens.emulated
        ? def.emulate(tokens.emulated, cfg)
        : await def.profile(tokens, { cfg, oidc: ctx.oidc, nonce });
      return def.map(raw, cfg);
    },
  };
}
