import type { ServerConfig } from '../config/index';
import {
  asRequest,
  type Database,
  type Statement as DbStatement,
  type RequestContext,
  type Transaction,
} from '../db/index';
import { quoteIdent } from '../db/quote';
import type { Principal } from './auth';
import { RestError } from './errors';
import type { MediaType } from './http/media';
import type { Preferences } from './http/prefer';
import { emptyLevel, type Level, type ParsedQuery } from './parse/ast';
import type { RowRange } from './plan/types';
import type { SchemaCache } from './schema/types';
import type { RestSettings } from './settings';
import { Params } from './sql/params';
import { type BuildContext, checkLevelsUsed } from './sql/read';

/** The service's long-lived state. */
export interface Runtime {
  config: ServerConfig;
  db: Database;
  cache(): SchemaCache;
  /** The settings in effect (options overridden by in-database ones). */
  settings(): RestSettings;
}

/** One request as read at the edge (plan/request.ts): what every plan starts from. */
export interface RestRequest {
  method: string;
  /** Path under /rest/v1, e.g. `/todos`. */
  path: string;
  search: string;
  pairs: [string, string][];
  schema: string;
  /** The schema was chosen by Accept-Profile / Content-Profile. */
  profileHeader: boolean;
  prefs: Preferences;
  media: MediaType;
  principal: Principal;
  /** Lower-cased request headers without Cookie (the `request.headers` GUC). */
  headers: Record<string, string>;
  rangeHeader: string | null;
  contentType: string | null;
  bodyText: string;
  /** The raw body of an `application/octet-stream` request. */
  bodyBytes: Uint8Array | null;
}

/** A row of the wrapped statement. */
export interface Outcome {
  total: number | null;
  pageTotal: number;
  body: string;
  gucHeaders: string | null;
  gucStatus: string | null;
  row: Record<string, unknown>;
}

export function outcomeOf(row: Record<string, unknown> | undefined): Outcome {
  const r = row ?? {};
  return {
    total: r.total === null || r.total === undefined ? null : Number(r.total),
    pageTotal: Number(r.page_total ?? 0),
    body: typeof r.body === 'string' ? r.body : '',
    gucHeaders: typeof r.response_headers === 'string' ? r.response_headers : null,
    gucStatus: typeof r.response_status === 'string' ? r.response_status : null,
    row: r,
  };
}

/** The schemas a request searches: its own, then the extra ones (PostgREST's order). */
export const searchPathOf = (rt: Runtime, req: RestRequest): string[] => [
  req.schema,
  ...rt.settings().extraSearchPath,
];

/** Who the request runs as, for asRequest / readAsRequest. */
export function requestContext(rt: Runtime, req: RestRequest): RequestContext {
  return {
    role: req.principal.role,
    claims: { ...req.principal.claims, role: req.principal.role },
    method: req.method,
    path: req.path,
    headers: req.headers,
    searchPath: searchPathOf(rt, req).map(quoteIdent).join(', '),
  };
}

/** Whether the request's transaction ends in a rollback (`db-tx-end` and `Prefer: tx`). */
export function rollsBack(rt: Runtime, req: RestRequest): boolean {
  switch (rt.settings().txEnd) {
    case 'commit':
      return false;
    case 'commit-allow-override':
      return req.prefs.tx === 'rollback';
    case 'rollback':
      return true;
    case 'rollback-allow-override':
      return req.prefs.tx !== 'commit';
  }
}

/** `Prefer: timezone=…` as a statement to run first, or none. */
export const timezoneStatements = (req: RestRequest): DbStatement[] =>
  req.prefs.timezone
    ? [{ text: `select set_config('timezone', $1, true)`, params: [req.prefs.timezone] }]
    : [];

class Rollback<T> {
  constructor(readonly result: T) {}
}

/**
 * Runs `fn` in the request's transaction (role + claims via asRequest, so RLS decides);
 * rolled back when `tx=rollback` was asked for or `rollback` is set.
 */
export async function runInTransaction<T>(
  rt: Runtime,
  req: RestRequest,
  readOnly: boolean,
  fn: (tx: Transaction) => Promise<T>,
  rollback = false,
  before: DbStatement[] = [],
): Promise<T> {
  const undo = rollback || rollsBack(rt, req);
  try {
    return await asRequest(
      rt.db,
      requestContext(rt, req),
      async (tx) => {
        for (const st of timezoneStatements(req)) await tx.query(st.text, st.params);
        const result = await fn(tx);
        if (undo) throw new Rollback(result);
        return result;
      },
      { readOnly, before },
    );
  } catch (error) {
    if (error instanceof Rollback) return error.result as T;
    throw error;
  }
}

/** A fresh build context for one request. */
export function buildContext(rt: Runtime, req: RestRequest, parsed: ParsedQuery): BuildContext {
  return {
    cache: rt.cache(),
    params: new Params(),
    levels: parsed.levels,
    aggregatesEnabled: rt.settings().aggregatesEnabled,
    usedLevels: new Set(),
    counter: 0,
    searchPath: searchPathOf(rt, req),
  };
}

export { checkLevelsUsed };

/** The root level's paging, intersected with the `Range` header and capped at max rows. */
export function pageOf(
  range: RowRange | null,
  root: Level | undefined,
  maxRows: number,
): { offset: number; limit: number | null } {
  const level = root ?? emptyLevel();
  let lower = level.offset ?? 0;
  let upper = level.limit !== null ? lower + level.limit - 1 : Number.POSITIVE_INFINITY;
  if (range) {
    if (range.to < range.from) throw rangeError(null);
    // Header range is relative to the whole set; limit/offset narrow it further.
    lower = Math.max(lower, range.from);
    upper = Math.min(upper, range.to);
  }
  if (upper < lower - 1) throw rangeError(null);
  upper = Math.min(upper, lower + maxRows - 1);
  return { offset: lower, limit: Number.isFinite(upper) ? upper - lower + 1 : null };
}

export const rangeError = (details: string | null) =>
  new RestError(416, 'PGRST103', 'Requested range not satisfiable', details, null);

/** `lower-upper/total` */
export function contentRange(offset: number, pageTotal: number, total: number | null): string {
  const t = total === null ? '*' : String(total);
  return pageTotal === 0 ? `*/${t}` : `${offset}-${offset + pageTotal - 1}/${t}`;
}

/** Applies the `response.status` / `response.headers` GUCs (PGRST112 / PGRST111 when bad). */
export function applyGucs(outcome: Outcome, status: number, headers: Headers): number {
  let result = status;
  if (outcome.gucStatus !== null) {
    const n = Number(outcome.gucStatus);
    if (!/^\d{3}$/.test(outcome.gucStatus.trim()) || n < 100 || n > 599) {
      throw new RestError(
        500,
        'PGRST112',
        'response.status guc must be a valid status code',
        null,
        null,
      );
    }
    result = n;
  }
  if (outcome.gucHeaders !== null) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(outcome.gucHeaders);
    } catch {
      parsed = null;
    }
    const bad = () =>
      new RestError(
        500,
        'PGRST111',
        'response.headers guc must be a JSON array composed of objects with a single key and a string value',
        null,
        null,
      );
    if (!Array.isArray(parsed)) throw bad();
    for (const entry of parsed) {
      if (typeof entry !== 'object' || entry === null) throw bad();
      const pairs = Object.entries(entry as Record<string, unknown>);
      if (pairs.length !== 1 || typeof pairs[0]?.[1] !== 'string') throw bad();
      const [k, v] = pairs[0] as [string, string];
      try {
        headers.set(k, v);
      } catch {
        throw bad();
      }
    }
  }
  return result;
}
