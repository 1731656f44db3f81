/**
 * The hook URIs of the hosted configuration (`auth.hooks.*`): checked when the settings are
 * resolved, and read again by the auth service when it runs a hook.
 */
import { quoteQualified } from '../db/quote';

const NAME = /^[a-zA-Z_][a-zA-Z0-9_$]*$/;

/**
 * Parses a hook URI of the hosted configuration, `pg-functions://postgres/<schema>/<function>`,
 * into the quoted function name. Throws a configuration error for anything else (this
 * server runs Postgres hooks only).
 *
 * @example
 * parseHookUri('pg-functions://postgres/public/hook', 'auth.hooks.customAccessToken');
 * // { uri: 'pg-functions://postgres/public/hook', fn: '"public"."hook"' }
 */
export function parseHookUri(uri: string, option: string): { uri: string; fn: string } {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw new Error(`${option}: not a URI: ${uri}`);
  }
  if (url.protocol !== 'pg-functions:') {
    throw new Error(
      `${option}: only pg-functions://postgres/<schema>/<function> hooks are supported`,
    );
  }
  const [, schema, fn] = url.pathname.split('/');
  if (!schema || !fn || !NAME.test(schema) || !NAME.test(fn)) {
    throw new Error(`${option}: expected pg-functions://postgres/<schema>/<function>, got ${uri}`);
  }
  return { uri, fn: quoteQualified(schema, fn) };
}
