/**
 * postgres_changes subscription parameters as the client sends them in `phx_join`:
 * `{event, schema, table?, filter?, select?}` → a validated binding, or the hosted error text.
 */

import { type Filter, parseFilters } from './filters';

export type { Filter } from './filters';

export type ChangeEvent = '*' | 'INSERT' | 'UPDATE' | 'DELETE';

export interface ChangeBinding {
  /** The integer id the join reply and every `postgres_changes` push carry. */
  id: number;
  /** The params exactly as the client sent them (echoed in the join reply with `id`). */
  params: Record<string, unknown>;
  event: ChangeEvent;
  schema: string;
  /** `*` for every table of the schema. */
  table: string;
  filters: Filter[];
  /** Columns to send (plus the primary key), or null for all. */
  select: string[] | null;
}

/** A stable integer id for a params object (the hosted service uses a 27-bit term hash). */
export function bindingId(params: Record<string, unknown>): number {
  const text = canonical(params);
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash & 0x7ffffff;
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) =>
      a < b ? -1 : a > b ? 1 : 0,
    );
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function eventOf(event: unknown): ChangeEvent {
  if (typeof event !== 'string' || event === '*') return '*';
  const upper = event.toUpperCase();
  return upper === 'INSERT' || upper === 'UPDATE' || upper === 'DELETE' ? upper : '*';
}

/** Validates one postgres_changes entry; the error text is what the `system` push carries. */
export function parseBinding(
  params: Record<string, unknown>,
): { ok: true; binding: ChangeBinding } | { ok: false; error: string } {
  const { schema, table, filter } = params;
  let select: string[] | null = null;
  if ('select' in params && params.select !== undefined && params.select !== null) {
    if (!Array.isArray(params.select)) {
      return {
        ok: false,
        error:
          'Error parsing `select` params: expected a list of column name strings, e.g. select: ["col1", "col2"]',
      };
    }
    const cols = params.select.filter((c): c is string => typeof c === 'string');
    select = cols.length > 0 ? cols : null;
  }
  let s: string;
  let t: string;
  let filters: Filter[] = [];
  const hasFilter = filter !== undefined && filter !== null;
  if (typeof schema === 'string' && typeof table === 'string') {
    s = schema;
    t = table;
    if (hasFilter) {
      if (typeof filter !== 'string') return noParams(params);
      const parsed = parseFilters(filter);
      if (!parsed.ok) return parsed;
      filters = parsed.filters;
    }
  } else if (typeof schema === 'string' && table === undefined && !hasFilter) {
    s = schema;
    t = '*';
  } else if (typeof table === 'string' && schema === undefined && !hasFilter) {
    s = 'public';
    t = table;
  } else {
    return noParams(params);
  }
  if (select && (s === '*' || t === '*')) {
    return {
      ok: false,
      error:
        'Column selection is not supported for wildcard subscriptions. Provide an explicit schema and table name.',
    };
  }
  return {
    ok: true,
    binding: {
      id: bindingId(params),
      params,
      event: eventOf(params.event),
      schema: s,
      table: t,
      filters,
      select,
    },
  };
}

function noParams(params: Record<string, unknown>) {
  return {
    ok: false as const,
    error: `No subscription params provided. Please provide at least a \`schema\` or \`table\` to subscribe to: ${JSON.stringify(params)}`,
  };
}

/** The legacy topic form `realtime:schema[:table[:filter]]` as params. */
export function legacyParams(subTopic: string): Record<string, unknown> {
  const [schema, table, ...rest] = subTopic.split(':');
  const params: Record<string, unknown> = { schema };
  if (table !== undefined) params.table = table;
  if (rest.length > 0) params.filter = rest.join(':');
  return params;
}
