/**
 * The named providers, each as GoTrue implements it: endpoints (with the `url` of a
 * self-hosted instance), default scopes, how the profile is fetched, and how the profile
 * becomes emails and identity claims. `emulate` builds the profile the provider's API would
 * give for a user typed on the emulated sign-in page, so the same mapping runs.
 */
import type { NamedProvider, ResolvedProvider } from '../../config/external-providers';
import { getJson } from './http';
import type { OidcCache } from './oidc';
import { verifyIdToken } from './oidc';
import {
  type Claims,
  claimsRecord,
  type EmulatedUser,
  type ProviderEmail,
  type ProviderTokens,
  type UserProvidedData,
} from './types';

/** Where a provider's authorize and token steps are. */
export interface Endpoints {
  authorize: string;
  token: string;
}

/** What the callback knows when it reads the profile. */
export interface ProfileContext {
  cfg: ResolvedProvider;
  oidc: OidcCache;
  /** The nonce sent on the authorize step (OIDC providers), or null. */
  nonce: string | null;
}

/** One named provider. */
export interface NamedDefinition {
  /** Scopes always asked for; requested ones are added (split on `,`, as GoTrue does). */
  scopes: string[];
  /** OpenID Connect: a nonce goes with the authorize step. */
  oidc: boolean;
  endpoints(cfg: ResolvedProvider, oidc: OidcCache): Promise<Endpoints>;
  /** The raw profile, from the provider's API (or its ID token). */
  profile(tokens: ProviderTokens, ctx: ProfileContext): Promise<unknown>;
  /** The raw profile → emails and identity claims. */
  map(raw: unknown, cfg: ResolvedProvider): UserProvidedData;
  /** The raw profile the provider would give for an emulated user. */
  emulate(user: EmulatedUser, cfg: ResolvedProvider): unknown;
}

const str = (v: unknown) => (typeof v === 'string' ? v : '');
const base = (cfg: ResolvedProvider, fallback: string) => cfg.url ?? fallback;

// --- GitHub ------------------------------------------------------------------------------

interface GithubUser {
  id: number;
  login?: string;
  email?: string;
  name?: string;
  avatar_url?: string;
}
interface GithubProfile {
  user: GithubUser;
  emails: { email?: string; primary?: boolean; verified?: boolean }[];
}
const githubApi = (cfg: ResolvedProvider) =>
  cfg.url ? `${cfg.url}/api/v3` : 'https://api.github.com';

const github: NamedDefinition = {
  scopes: ['user:email'],
  oidc: false,
  async endpoints(cfg) {
    const host = base(cfg, 'https://github.com');
    return {
      authorize: `${host}/login/oauth/authorize`,
      token: `${host}/login/oauth/access_token`,
    };
  },
  async profile(tokens, { cfg }) {
    const api = githubApi(cfg);
    const user = await getJson<GithubUser>(`${api}/user`, tokens.accessToken);
    const emails = await getJson<GithubProfile['emails']>(`${api}/user/emails`, tokens.accessToken);
    return { user, emails: Array.isArray(emails) ? emails : [] } satisfies GithubProfile;
  },
  map(raw, cfg) {
    const { user, emails } = raw as GithubProfile;
    const id = String(Math.trunc(Number(user.id) || 0));
    return {
      emails: emails
        .filter((e) => str(e.email) !== '')
        .map((e) => ({ email: str(e.email), verified: !!e.verified, primary: !!e.primary })),
      claims: claimsRecord({
        iss: githubApi(cfg),
        sub: id,
        name: user.name,
        preferred_username: user.login,
        avatar_url: user.avatar_url,
        full_name: user.name,
        provider_id: id,
        user_name: user.login,
      }),
    };
  },
  emulate(u) {
    const login = (u.email.split('@')[0] || u.name || 'user').replace(/[^A-Za-z0-9-]/g, '-');
    return {
      user: { id: Number(u.sub), login, name: u.name, avatar_url: u.avatarUrl, email: u.email },
      emails: u.email ? [{ email: u.email, primary: true, verified: u.emailVerified }] : [],
    } satisfies GithubProfile;
  },
};

// --- Google ------------------------------------------------------------------------------

const GOOGLE_ISSUER = 'https://accounts.google.com';
const GOOGLE_USERINFO = 'https://www.googleapis.com/userinfo/v2/me';
const googleIssuer = (cfg: ResolvedProvider) => cfg.url ?? GOOGLE_ISSUER;

interface GoogleClaims {
  id?: string;
  sub?: string;
  iss?: string;
  name?: string;
  picture?: string;
  email?: string;
  verified_email?: boolean;
  email_verified?: boolean;
  hd?: string;
}
/** Google's profile: the claims of its ID token, or (legacy) its userinfo v2 answer. */
type GoogleProfile = { idToken: GoogleClaims } | { userinfo: GoogleClaims; endpoint: string };

const googleEmails = (c: GoogleClaims): ProviderEmail[] =>
  c.email
    ? [{ email: c.email, verified: !!(c.verified_email || c.email_verified), primary: true }]
    : [];

const google: NamedDefinition = {
  scopes: ['email', 'profile'],
  oidc: true,
  async endpoints(cfg, oidc) {
    const { metadata } = await oidc.get(googleIssuer(cfg));
    return { authorize: metadata.authorization_endpoint, token: metadata.token_endpoint };
  },
  async profile(tokens, { cfg, oidc, nonce }) {
    if (tokens.idToken) {
      const issuer = await oidc.get(googleIssuer(cfg));
      const token = await verifyIdToken(issuer, tokens.idToken, {
        accessToken: tokens.accessToken,
      });
      if (!token.audience.includes(cfg.clientIds[0] ?? '')) {
        throw new Error(
          `oidc: expected audience "${cfg.clientIds[0]}" got ${JSON.stringify(token.audience)}`,
        );
      }
      if (nonce && token.nonce !== nonce) throw new Error('oidc: ID token nonce does not match');
      return { idToken: token.claims as GoogleClaims } satisfies GoogleProfile;
    }
    const endpoint = cfg.url ? `${cfg.url}/userinfo/v2/me` : GOOGLE_USERINFO;
    return { userinfo: await getJson<GoogleClaims>(endpoint, tokens.accessToken), endpoint };
  },
  map(raw) {
    const p = raw as GoogleProfile;
    if ('idToken' in p) {
      const c = p.idToken;
      return {
        emails: googleEmails(c),
        claims: claimsRecord({
          iss: c.iss,
          sub: c.sub,
          name: c.name,
          picture: c.picture,
          avatar_url: c.picture,
          full_name: c.name,
          provider_id: c.sub,
          ...(c.hd ? { custom_claims: { hd: c.hd } } : {}),
        }),
      };
    }
    const u = p.userinfo;
    return {
      emails: googleEmails(u),
      claims: claimsRecord({
        iss: p.endpoint,
        sub: u.id,
        name: u.name,
        picture: u.picture,
        email: u.email,
        email_verified: !!(u.verified_email || u.email_verified),
        avatar_url: u.picture,
        full_name: u.name,
        provider_id: u.id,
      }),
    };
  },
  emulate(u, cfg) {
    return {
      idToken: {
        iss: googleIssuer(cfg),
        sub: u.sub,
        email: u.email,
        email_verified: u.emailVerified,
        name: u.name,
        picture: u.avatarUrl,
      },
    } satisfies GoogleProfile;
  },
};

// --- GitLab ------------------------------------------------------------------------------

interface GitlabProfile {
  user: {
    id: number;
    email?: string;
    name?: string;
    avatar_url?: string;
    confirmed_at?: string | null;
  };
  emails: { email?: string }[];
}
const gitlab: NamedDefinition = {
  scopes: ['read_user'],
  oidc: false,
  async endpoints(cfg) {
    const host = base(cfg, 'https://gitlab.com');
    return { authorize: `${host}/oauth/authorize`, token: `${host}/oauth/token` };
  },
  async profile(tokens, { cfg }) {
    const host = base(cfg, 'https://gitlab.com');
    const user = await getJson<GitlabProfile['user']>(`${host}/api/v4/user`, tokens.accessToken);
    const emails = await getJson<GitlabProfile['emails']>(
      `${host}/api/v4/user/emails`,
      tokens.accessToken,
    );
    return { user, emails: Array.isArray(emails) ? emails : [] } satisfies GitlabProfile;
  },
  map(raw, cfg) {
    const { user, emails } = raw as GitlabProfile;
    const id = String(Math.trunc(Number(user.id) || 0));
    // GitLab's extra addresses carry no confirmation; the account's own address does.
    const list: ProviderEmail[] = emails
      .filter((e) => str(e.email) !== '')
      .map((e) => ({ email: str(e.email), verified: false, primary: false }));
    if (user.email) list.push({ email: user.email, verified: !!user.confirmed_at, primary: true });
    return {
      emails: list,
      claims: claimsRecord({
        iss: base(cfg, 'https://gitlab.com'),
        sub: id,
        name: user.name,
        picture: user.avatar_url,
        avatar_url: user.avatar_url,
        full_name: user.name,
        provider_id: id,
      }),
    };
  },
  emulate(u) {
    return {
      user: {
        id: Number(u.sub),
        email: u.email,
        name: u.name,
        avatar_url: u.avatarUrl,
        confirmed_at: u.emailVerified ? new Date().toISOString() : '',
      },
      emails: [],
    } satisfies GitlabProfile;
  },
};

// --- Discord -----------------------------------------------------------------------------

interface DiscordUser {
  id: string;
  username?: string;
  global_name?: string;
  discriminator?: string;
  avatar?: string | null;
  email?: string;
  verified?: boolean;
}
const discordApi = (cfg: ResolvedProvider) => `${base(cfg, 'https://discord.com')}/api`;

const discord: NamedDefinition = {
  scopes: ['email', 'identify'],
  oidc: false,
  async endpoints(cfg) {
    const api = discordApi(cfg);
    return { authorize: `${api}/oauth2/authorize`, token: `${api}/oauth2/token` };
  },
  profile: (tokens, { cfg }) =>
    getJson<DiscordUser>(`${discordApi(cfg)}/users/@me`, tokens.accessToken),
  map(raw, cfg) {
    const u = raw as DiscordUser;
    let avatar: string;
    if (!u.avatar) {
      const discriminator = Number.parseInt(u.discriminator ?? '', 10);
      if (Number.isNaN(discriminator))
        throw new Error('Discord user without avatar or discriminator');
      avatar = `https://cdn.discordapp.com/embed/avatars/${discriminator % 5}.png`;
    } else {
      const ext = u.avatar.startsWith('a_') ? 'gif' : 'png';
      avatar = `https://cdn.discordapp.com/avatars/${u.id}/${u.avatar}.${ext}`;
    }
    const claims: Claims = claimsRecord({
      iss: discordApi(cfg),
      sub: u.id,
      name: `${u.username ?? ''}#${u.discriminator ?? ''}`,
      picture: avatar,
      custom_claims: { global_name: u.global_name ?? '' },
      avatar_url: avatar,
      full_name: u.username,
      provider_id: u.id,
    });
    return {
      emails: u.email ? [{ email: u.email, verified: !!u.verified, primary: true }] : [],
      claims,
    };
  },
  emulate(u) {
    return {
      id: u.sub,
      username: (u.email.split('@')[0] || u.name || 'user').toLowerCase(),
      global_name: u.name,
      discriminator: '0',
      avatar: null,
      email: u.email,
      verified: u.emailVerified,
    } satisfies DiscordUser;
  },
};

export const NAMED: Record<NamedProvider, NamedDefinition> = { github, google, gitlab, discord };

/** Issuer of Google's ID tokens for this configuration. */
export { googleIssuer };
