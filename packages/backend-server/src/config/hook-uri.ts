/**
 * The hook URIs of the hosted configuration (`auth.hooks.*`): checked when the settings are
 * resolved (auth-hooks.ts).
 */
import { quoteQualified } from '../db/quote';

const SCHEMA = /^[a-zA-Z_][a-zA-Z0-9_$]*$/;
/** Function names may carry hyphens, as the hosted CLI's template has them. */
const FUNCTION = /^[a-zA-Z_][a-zA-Z0-9_$-]*$/;

/**
 * Parses a hook URI of the hosted configuration: `pg-functions://postgres/<schema>/<function>`
 * into the quoted function name, or an `http://` / `https://` endpoint. Throws a
 * configuration error for anything else.
 *
 * @example
 * parseHookUri('pg-functions://postgres/public/hook', 'auth.hooks.customAccessToken');
 * // { kind: 'pg', fn: '"public"."hook"' }
 */
export function parseHookUri(
  uri: string,
  option: string,
): { kind: 'pg' | 'http'; fn: string | null } {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw new Error(`${option}: not a URI: ${uri}`);
  }
  if (url.protocol === 'http:' || url.protocol === 'https:') return { kind: 'http', fn: null };
  if (url.protocol !== 'pg-functions:') {
    throw new Error(
      `${option}: a hook is pg-functions://postgres/<schema>/<function> or an http(s) URL`,
    );
  }
  const [, schema, fn, ...rest] = url.pathname.split('/');
  if (!schema || !fn || rest.length > 0 || !SCHEMA.test(schema) || !FUNCTION.test(fn)) {
    throw new Error(`${option}: expected pg-functions://postgres/<schema>/<function>, got ${uri}`);
  }
  return { kind: 'pg', fn: quoteQualified(schema, fn) };
}
