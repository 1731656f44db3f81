/**
 * Settings of the auth hooks (the hosted `[auth.hook.<name>]` tables): each hook is a Postgres
 * function or an HTTP(S) endpoint signed with Standard Webhooks secrets. Part of the one
 * config loader: `resolveConfig` (resolve.ts) calls {@link resolveHooks}, `projectOptions`
 * (project-toml.ts) calls {@link authHooksFromToml}.
 */
import { parseHookUri } from './hook-uri';

/** The hooks, by option name, with their `config.toml` table names. */
export const HOOK_TABLES = {
  customAccessToken: 'custom_access_token',
  sendEmail: 'send_email',
  sendSms: 'send_sms',
  beforeUserCreated: 'before_user_created',
  mfaVerificationAttempt: 'mfa_verification_attempt',
  passwordVerificationAttempt: 'password_verification_attempt',
} as const;

export type HookName = keyof typeof HOOK_TABLES;

/**
 * One hook: `pg-functions://postgres/<schema>/<function>` (run as `supabase_auth_admin`,
 * which needs EXECUTE on it) or an `http://` / `https://` endpoint (POST JSON, signed with
 * each of `secrets`). A bare string is the URI of an enabled hook.
 *
 * @example
 * { uri: 'https://hooks.example.com/send-email', secrets: 'v1,whsec_…' }
 */
export type HookOption =
  | string
  | {
      /** Default true (an entry turns the hook on). */
      enabled?: boolean;
      /** The function or endpoint. */
      uri: string;
      /**
       * HTTP hooks only: Standard Webhooks secrets `v1,whsec_<base64>` (at least 32
       * characters of base64), a list or one string with `|` between secrets (as
       * `config.toml` has it). Each signs the payload; the endpoint accepts any match.
       */
      secrets?: string | string[];
    };

/** The `auth.hooks` option: each hook by name. */
export type HookOptions = Partial<Record<HookName, HookOption>>;

/** One enabled hook, checked. */
export interface ResolvedHook {
  uri: string;
  kind: 'pg' | 'http';
  /** The quoted function (`pg` hooks). */
  fn: string | null;
  /** Signing secrets, base64 part only (`http` hooks). */
  secrets: string[];
}

export type ResolvedHooks = Partial<Record<HookName, ResolvedHook>>;

const SECRET = /^v1,whsec_([A-Za-z0-9+/=]{32,88})$/;

/** Checks the `auth.hooks` option: URIs, and secrets of HTTP hooks; disabled hooks are left out. */
export function resolveHooks(options: HookOptions | undefined): ResolvedHooks {
  const out: ResolvedHooks = {};
  for (const [name, raw] of Object.entries(options ?? {})) {
    if (raw === undefined || raw === null) continue;
    const where = `auth.hooks.${name}`;
    if (!(name in HOOK_TABLES)) {
      throw new Error(`${where}: unknown hook (hooks: ${Object.keys(HOOK_TABLES).join(', ')})`);
    }
    const hook = typeof raw === 'string' ? { uri: raw } : raw;
    if (hook.enabled === false) continue;
    if (typeof hook.uri !== 'string' || !hook.uri) throw new Error(`${where}.uri is required`);
    const parsed = parseHookUri(hook.uri, where);
    const given = hook.secrets ?? [];
    const list = (Array.isArray(given) ? given : given.split('|')).map((s) => s.trim());
    const secrets = list.filter((s) => s !== '');
    if (parsed.kind === 'pg' && secrets.length > 0) {
      throw new Error(`${where}.secrets: secrets are for HTTP hooks, not pg-functions`);
    }
    if (parsed.kind === 'http' && secrets.length === 0) {
      throw new Error(`${where}.secrets: an HTTP hook needs at least one secret`);
    }
    const bare = secrets.map((s) => {
      const match = SECRET.exec(s);
      if (!match?.[1]) {
        throw new Error(
          `${where}.secrets must be formatted as "v1,whsec_<base64_encoded_secret>" with at least 32 characters`,
        );
      }
      return match[1];
    });
    out[name as HookName] = { uri: hook.uri, kind: parsed.kind, fn: parsed.fn, secrets: bare };
  }
  return out;
}

type Table = Record<string, unknown>;

/**
 * The `[auth.hook.<name>]` tables of a parsed `config.toml` (`enabled`, `uri`, `secrets`),
 * as `auth.hooks` options; a table without `enabled = true` is off, as in the hosted CLI.
 */
export function authHooksFromToml(toml: Table, file: string): HookOptions | undefined {
  const tables = ((toml.auth as Table | undefined)?.hook ?? {}) as Record<string, Table>;
  const out: HookOptions = {};
  for (const [name, key] of Object.entries(HOOK_TABLES) as [HookName, string][]) {
    const t: Table = tables[key] ?? {};
    if (t.enabled !== true) continue;
    const text = (field: string) => {
      const v = t[field];
      if (v === undefined || v === '') return undefined;
      if (typeof v !== 'string')
        throw new Error(`${file}: auth.hook.${key}.${field} must be a string`);
      return v;
    };
    const uri = text('uri');
    if (!uri) throw new Error(`${file}: auth.hook.${key}.uri is required`);
    const secrets = text('secrets');
    out[name] = secrets ? { uri, secrets } : { uri };
  }
  return Object.keys(out).length ? out : undefined;
}
