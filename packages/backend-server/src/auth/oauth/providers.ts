/**
 * The provider behind a name (`github`, `custom:acme`, …) for one flow: its authorize URL,
 * code exchange and user data — a real provider over HTTP, or, with `emulateProviders`, the
 * emulated one (a local page, then the same mapping of the provider's profile).
 */
import { randomBytes } from 'node:crypto';
import type { ResolvedProvider } from '../../config/external-providers';
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

/** Codes handed out by the emulated sign-in page, for the callback's exchange. */
export class EmulatorCodes {
  private readonly codes = new Map<string, { provider: string; user: EmulatedUser; exp: number }>();

  issue(provider: string, user: EmulatedUser): string {
    const now = Date.now();
    for (const [code, entry] of this.codes) if (entry.exp < now) this.codes.delete(code);
    const code = randomBytes(16).toString('hex');
    this.codes.set(code, { provider, user, exp: now + 5 * 60_000 });
    return code;
  }

  take(provider: string, code: string): EmulatedUser | null {
    const entry = this.codes.get(code);
    this.codes.delete(code);
    return entry && entry.provider === provider && entry.exp >= Date.now() ? entry.user : null;
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
        const user = ctx.emulatorCodes.take(name, code);
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
