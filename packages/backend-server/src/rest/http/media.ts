import { RestError } from '../errors';

/** What the response body should be. */
export type MediaType =
  | { kind: 'json'; stripNulls: boolean }
  | { kind: 'object'; stripNulls: boolean }
  | { kind: 'csv' }
  | { kind: 'openapi' }
  | { kind: 'plan'; format: 'json' | 'text'; for: string; options: string[] };

interface Range {
  type: string;
  params: Map<string, string>;
}

function parseAccept(header: string): Range[] {
  const out: Range[] = [];
  // Split on commas outside quotes.
  const parts = header.match(/(?:[^,"]|"[^"]*")+/g) ?? [];
  for (const part of parts) {
    const [type = '', ...rest] = part.split(';');
    const params = new Map<string, string>();
    for (const p of rest) {
      const eq = p.indexOf('=');
      if (eq < 0) continue;
      params.set(
        p.slice(0, eq).trim().toLowerCase(),
        p
          .slice(eq + 1)
          .trim()
          .replace(/^"|"$/g, ''),
      );
    }
    const t = type.trim().toLowerCase();
    if (t) out.push({ type: t, params });
  }
  return out;
}

/**
 * Picks the first supported media type of `Accept` (PGRST107 when none is). Plans
 * (`application/vnd.pgrst.plan…`) only when `planEnabled` (db-plan-enabled).
 */
export function negotiate(accept: string | null, root: boolean, planEnabled = false): MediaType {
  if (!accept?.trim()) return root ? { kind: 'openapi' } : { kind: 'json', stripNulls: false };
  for (const r of parseAccept(accept)) {
    const strip = r.params.get('nulls') === 'stripped';
    switch (r.type) {
      case '*/*':
      case 'application/*':
        return root ? { kind: 'openapi' } : { kind: 'json', stripNulls: false };
      case 'application/json':
        return { kind: 'json', stripNulls: false };
      case 'application/vnd.pgrst.array+json':
      case 'application/vnd.pgrst.array':
        return { kind: 'json', stripNulls: strip };
      case 'application/vnd.pgrst.object+json':
      case 'application/vnd.pgrst.object':
        return { kind: 'object', stripNulls: strip };
      case 'text/csv':
        return { kind: 'csv' };
      case 'application/openapi+json':
        if (root) return { kind: 'openapi' };
        break;
      case 'application/vnd.pgrst.plan':
      case 'application/vnd.pgrst.plan+json':
      case 'application/vnd.pgrst.plan+text': {
        if (!planEnabled) break;
        const format = r.type.endsWith('+text') ? 'text' : 'json';
        const options = (r.params.get('options') ?? '')
          .split('|')
          .map((o) => o.trim())
          .filter((o) => PLAN_OPTIONS.includes(o));
        return { kind: 'plan', format, for: r.params.get('for') ?? 'application/json', options };
      }
    }
  }
  throw new RestError(
    406,
    'PGRST107',
    `None of these media types are available: ${parseAccept(accept).map(mime).join(', ')}`,
    null,
    null,
  );
}

const PLAN_OPTIONS = ['analyze', 'verbose', 'settings', 'buffers', 'wal'];

/** A media type written back the way PostgREST writes it in its errors. */
function mime(r: Range): string {
  const stripped = r.params.get('nulls') === 'stripped' ? ';nulls=stripped' : '';
  switch (r.type) {
    case 'application/vnd.pgrst.object':
    case 'application/vnd.pgrst.object+json':
      return `application/vnd.pgrst.object+json${stripped}`;
    case 'application/vnd.pgrst.array':
    case 'application/vnd.pgrst.array+json':
      return stripped ? `application/vnd.pgrst.array+json${stripped}` : 'application/json';
    case 'application/vnd.pgrst.plan':
    case 'application/vnd.pgrst.plan+json':
    case 'application/vnd.pgrst.plan+text': {
      const format = r.type.endsWith('+text') ? 'text' : 'json';
      const options = (r.params.get('options') ?? '')
        .split('|')
        .map((o) => o.trim())
        .filter((o) => PLAN_OPTIONS.includes(o));
      const of = r.params.get('for') ?? 'application/json';
      return `application/vnd.pgrst.plan+${format}; for="${of}"${options.length ? `; options=${options.join('|')}` : ''}`;
    }
    default:
      return r.type;
  }
}
