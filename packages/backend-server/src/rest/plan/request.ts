import { authenticate } from '../auth';
import type { RestRequest, Runtime } from '../context';
import { RestError } from '../errors';
import { negotiate } from '../http/media';
import { type Preferences, parsePrefer } from '../http/prefer';
import { queryPairs } from '../parse/query';
import type { RestSettings } from '../settings';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

function chooseSchema(rt: Runtime, method: string, headers: Headers) {
  const header =
    method === 'GET' || method === 'HEAD' || method === 'OPTIONS'
      ? headers.get('accept-profile')
      : headers.get('content-profile');
  const schemas = rt.config.rest.schemas;
  if (header === null) return { schema: schemas[0] ?? 'public', profileHeader: false };
  if (!schemas.includes(header)) {
    throw new RestError(
      406,
      'PGRST106',
      `Invalid schema: ${header}`,
      null,
      `Only the following schemas are exposed: ${schemas.join(', ')}`,
    );
  }
  return { schema: header, profileHeader: true };
}

/** The body as text, and as bytes when it is binary (a bytea rpc parameter). */
async function readBody(raw: Request, hasBody: boolean) {
  if (!hasBody) return { bodyText: '', bodyBytes: null };
  const type = raw.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/octet-stream') return { bodyText: await raw.text(), bodyBytes: null };
  return { bodyText: '', bodyBytes: new Uint8Array(await raw.arrayBuffer()) };
}

/** `Prefer: tx=` counts only where db-tx-end allows overriding (else it is ignored). */
function txAllowed(prefs: Preferences, settings: RestSettings): Preferences {
  if (!settings.txEnd.endsWith('-allow-override')) prefs.tx = null;
  return prefs;
}

/**
 * Reads a request at the edge: the method (PGRST117), who asks (the JWT), the schema
 * (Accept-Profile / Content-Profile, PGRST106), the query string's pairs (PGRST100 for a
 * bad escape), `Prefer` (PGRST122), `Accept` (PGRST107) and the body, in that order.
 */
export async function readRequest(
  rt: Runtime,
  raw: Request,
  gatewayToken: Parameters<typeof authenticate>[0],
  basePath: string,
): Promise<RestRequest> {
  const method = raw.method.toUpperCase();
  if (!METHODS.has(method))
    throw new RestError(405, 'PGRST117', `Unsupported HTTP method: ${method}`, null, null);
  const principal = await authenticate(gatewayToken, rt.config.signingKeys);
  const url = new URL(raw.url);
  const path = url.pathname.slice(basePath.length) || '/';
  const { schema, profileHeader } = chooseSchema(rt, method, raw.headers);
  const headers: Record<string, string> = {};
  raw.headers.forEach((v, k) => {
    if (k !== 'cookie') headers[k] = v;
  });
  const hasBody = method === 'POST' || method === 'PUT' || method === 'PATCH';
  return {
    method,
    path,
    search: url.search,
    pairs: queryPairs(url.search),
    schema,
    profileHeader,
    prefs: txAllowed(parsePrefer(raw.headers.get('prefer')), rt.settings()),
    media: negotiate(raw.headers.get('accept'), path === '/', rt.settings().planEnabled),
    principal,
    headers,
    rangeHeader: raw.headers.get('range'),
    contentType: raw.headers.get('content-type'),
    ...(await readBody(raw, hasBody)),
  };
}
