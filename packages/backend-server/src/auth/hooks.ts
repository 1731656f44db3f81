import { randomUUID } from 'node:crypto';
import { parseHookUri } from '../config/hook-uri';
import type { Queryable } from '../db/index';
import { AuthError } from './errors';

/** The role GoTrue connects as: Postgres hooks run as it, so it needs EXECUTE on them. */
export const HOOK_ROLE = 'supabase_auth_admin';
/** GoTrue's limit on a Postgres hook (`statement_timeout`). */
const HOOK_TIMEOUT_MS = 2000;

/** A hook error as GoTrue reports it: the status, the message and no error code of its own. */
const hookError = (status: number, message: string, cause?: unknown) =>
  new AuthError(status, '', message, {}, cause);

type JsonType = 'string' | 'integer' | 'object' | 'array' | 'null' | 'number' | 'boolean';

function typeOf(value: unknown): JsonType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value as JsonType;
}

/** GoTrue's minimum schema of the claims a hook returns: required members and their types. */
const CLAIM_TYPES: Record<string, readonly JsonType[]> = {
  aud: ['string', 'array'],
  exp: ['integer'],
  jti: ['string'],
  iat: ['integer'],
  iss: ['string'],
  nbf: ['integer'],
  sub: ['string'],
  email: ['string'],
  phone: ['string'],
  app_metadata: ['object'],
  user_metadata: ['object'],
  role: ['string'],
  aal: ['string'],
  amr: ['array'],
  session_id: ['string'],
  client_id: ['string'],
};
const REQUIRED = [
  'aud',
  'exp',
  'iat',
  'sub',
  'email',
  'phone',
  'role',
  'aal',
  'session_id',
  'is_anonymous',
];

/** The schema violations of hook output claims, in GoTrue's wording (empty when valid). */
export function claimProblems(claims: unknown): string[] {
  const kind = typeOf(claims);
  if (kind !== 'object') return [`(root): Invalid type. Expected: object, given: ${kind}`];
  const record = claims as Record<string, unknown>;
  const problems: string[] = [];
  for (const name of REQUIRED) {
    if (!(name in record)) problems.push(`(root): ${name} is required`);
  }
  for (const [name, types] of Object.entries(CLAIM_TYPES)) {
    if (!(name in record)) continue;
    const given = typeOf(record[name]);
    const fits = types.includes(given) || (given === 'integer' && types.includes('number'));
    if (!fits) {
      problems.push(`${name}: Invalid type. Expected: ${types.join('/')}, given: ${given}`);
    }
  }
  const amr = record.amr;
  if (Array.isArray(amr)) {
    amr.forEach((item, i) => {
      const t = typeOf(item);
      if (t !== 'string' && t !== 'object') {
        problems.push(`amr.${i}: Must validate at least one schema (anyOf)`);
      }
    });
  }
  return problems;
}

/** The access-token hook of one server (or none). */
export interface AuthHooks {
  /**
   * Runs the custom access-token hook, when configured, in the issuing transaction `q` as
   * GoTrue does (as `supabase_auth_admin`, 2 s statement timeout), and returns the claims to
   * sign: the hook's `claims`, or the given ones when no hook is configured. Hook errors,
   * missing or invalid output claims become the errors GoTrue answers with.
   */
  customizeAccessToken(
    q: Queryable,
    input: { userId: string; claims: Record<string, unknown>; method: string },
  ): Promise<Record<string, unknown>>;
}

/** The hooks of a server from its `auth.hooks` setting (URIs already checked by the config). */
export function createHooks(customAccessToken: string | null): AuthHooks {
  const hook = customAccessToken
    ? parseHookUri(customAccessToken, 'auth.hooks.customAccessToken')
    : null;
  return {
    async customizeAccessToken(q, { userId, claims, method }) {
      if (!hook) return claims;
      const payload = JSON.stringify({
        metadata: {
          uuid: randomUUID(),
          time: new Date().toISOString(),
          name: 'customize-access-token',
        },
        user_id: userId,
        claims,
        authentication_method: method,
      });
      let output: string | null;
      try {
        await q.query(
          `select set_config('role', $1, true), set_config('statement_timeout', $2, true)`,
          [HOOK_ROLE, String(HOOK_TIMEOUT_MS)],
        );
        const { rows } = await q.query<{ out: string | null }>(
          `select (${hook.fn}($1::text::jsonb))::text as out`,
          [payload],
        );
        output = rows[0]?.out ?? null;
        await q.query(`reset role`);
        await q.query(`set local statement_timeout to default`);
      } catch (cause) {
        throw hookError(500, `Error running hook URI: ${hook.uri}`, cause);
      }
      let parsed: unknown = null;
      try {
        parsed = output === null ? null : JSON.parse(output);
      } catch {
        throw hookError(500, 'Error unmarshaling JSON output.');
      }
      const result = (parsed ?? {}) as {
        error?: { http_code?: unknown; message?: unknown };
        claims?: unknown;
      };
      const error = result.error;
      if (
        error &&
        typeof error === 'object' &&
        typeof error.message === 'string' &&
        error.message
      ) {
        const code =
          typeof error.http_code === 'number' && error.http_code > 0 ? error.http_code : 500;
        throw hookError(code, error.message);
      }
      if (parsed !== null && (typeof parsed !== 'object' || !('claims' in (parsed as object)))) {
        throw hookError(500, 'output claims field is missing');
      }
      const problems = claimProblems(result.claims ?? null);
      if (problems.length > 0) {
        throw hookError(
          500,
          `output claims do not conform to the expected schema: \n${problems.map((p) => `- ${p}\n`).join('')}`,
        );
      }
      return result.claims as Record<string, unknown>;
    },
  };
}
