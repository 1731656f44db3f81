/**
 * The immutable, thenable REST request builder: every method returns a new builder, and
 * awaiting one sends its request once. Filters and modifiers follow the PostgREST URL
 * grammar the official client sends.
 */
import { RestError } from '../errors';
import type { Http } from '../http/index';
import type { Filters } from './filters';
import { readResponse, type Unmarked } from './response';
import type { CheckedSelect, ParseSelect } from './select';
import type {
  CountMethod,
  GenericSchema,
  RelationshipsOf,
  RestResult,
  RestResultOf,
} from './types';
import { arrayLiteral, type FilterValue, inList } from './values';

/** HTTP methods of REST requests. */
export type RestMethod = 'GET' | 'HEAD' | 'POST' | 'PATCH' | 'DELETE';

/** Everything a builder knows; builders copy it, never mutate it. */
export interface RestState {
  http: Http;
  /** Path below the project URL, e.g. `/rest/v1/todos`. */
  path: string;
  method: RestMethod;
  schema: string;
  /** Query parameters in order. */
  query: readonly (readonly [string, string])[];
  headers: Readonly<Record<string, string>>;
  /** Values of the `Prefer` header in order. */
  prefer: readonly string[];
  body?: unknown;
  signal?: AbortSignal;
  throws?: boolean;
  maybeSingle?: boolean;
  /** Longest URL sent; longer ones fail with `url_too_long` before sending. */
  urlLimit: number;
}

/** A serialised request, as {@link RestBuilder.toRequest} returns it. */
export interface RestRequest {
  method: RestMethod;
  /** Full URL including the query string. */
  url: string;
  headers: Record<string, string>;
  /** JSON body text, or undefined. */
  body: string | undefined;
}

/** Options of `order()`. */
export interface OrderOptions {
  ascending?: boolean;
  nullsFirst?: boolean;
  referencedTable?: string;
}

const restError = (m: string, o: ConstructorParameters<typeof RestError>[1]) => new RestError(m, o);

/** Strips whitespace outside double quotes, as PostgREST clients do for `select`. */
export const cleanColumns = (columns: string): string =>
  columns.replace(/"[^"]*"|\s+/g, (m) => (m[0] === '"' ? m : ''));

/** Is `value` a value of a filter that needs no encoding? */
const text = (value: unknown) => `${value}`;

/**
 * A REST request under construction. Typed by the schema, the row type of the relation
 * and the result type; `Throws` is true after `throwOnError()`.
 */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: filter methods are added below
export class RestBuilder<
  Schema extends GenericSchema = GenericSchema,
  // biome-ignore lint/suspicious/noExplicitAny: untyped default
  Row extends Record<string, unknown> = any,
  Result = unknown,
  RelationName = unknown,
  Throws extends boolean = false,
> implements PromiseLike<RestResultOf<Result, Throws>>
{
  /** The builder's state (read-only; methods return new builders). */
  readonly state: RestState;

  constructor(state: RestState) {
    this.state = state;
  }

  /** A copy with some state replaced. */
  protected next(patch: Partial<RestState>): this {
    return new (this.constructor as new (s: RestState) => this)({ ...this.state, ...patch });
  }

  /** A copy with a query parameter appended (or replacing every earlier one with `set`). */
  protected param(key: string, value: string, set?: boolean): this {
    const query = set ? this.state.query.filter(([k]) => k !== key) : this.state.query;
    return this.next({ query: [...query, [key, value]] });
  }

  /** A copy with a header set. */
  setHeader(name: string, value: string): this {
    return this.next({ headers: { ...this.state.headers, [name]: value } });
  }

  /** A copy with a `Prefer` value appended. */
  protected preferring(...values: string[]): this {
    return this.next({ prefer: [...this.state.prefer, ...values] });
  }

  /** Appends the raw filter `column=operator.value`. */
  filter(column: string, operator: string, value: unknown): this {
    return this.param(column, `${operator}.${text(value)}`);
  }

  /**
   * After a mutation, return the affected rows shaped by `columns` (`Prefer:
   * return=representation`).
   */
  select<Q extends string = '*'>(
    columns?: CheckedSelect<
      ParseSelect<Schema, Row, RelationName, RelationshipsOf<Schema, RelationName>, Q>,
      Q
    >,
  ): RestBuilder<
    Schema,
    Row,
    ParseSelect<Schema, Row, RelationName, RelationshipsOf<Schema, RelationName>, Q>[],
    RelationName,
    Throws
  > {
    return this.param('select', cleanColumns(columns ?? '*'), true).preferring(
      'return=representation',
    ) as never;
  }

  /** Orders by `column`; repeated calls add further keys. */
  order(column: string, options: OrderOptions = {}): this {
    const key = options.referencedTable ? `${options.referencedTable}.order` : 'order';
    const previous = this.state.query.find(([k]) => k === key)?.[1];
    const nulls =
      options.nullsFirst === undefined ? '' : options.nullsFirst ? '.nullsfirst' : '.nullslast';
    const term = `${column}.${options.ascending === false ? 'desc' : 'asc'}${nulls}`;
    return this.param(key, previous ? `${previous},${term}` : term, true);
  }

  /** Limits the number of rows (of the referenced table when given). */
  limit(count: number, options: { referencedTable?: string } = {}): this {
    const prefix = options.referencedTable ? `${options.referencedTable}.` : '';
    return this.param(`${prefix}limit`, text(count), true);
  }

  /** Rows `from` to `to` inclusive, zero-based. */
  range(from: number, to: number, options: { referencedTable?: string } = {}): this {
    const prefix = options.referencedTable ? `${options.referencedTable}.` : '';
    return this.param(`${prefix}offset`, text(from), true).param(
      `${prefix}limit`,
      text(to - from + 1),
      true,
    );
  }

  /** Aborts the request with `signal`. */
  abortSignal(signal: AbortSignal): this {
    return this.next({ signal });
  }

  /** Exactly one row as an object; anything else is a `PGRST116` error. */
  single(): RestBuilder<Schema, Row, ElementOf<Result>, RelationName, Throws> {
    return this.setHeader('Accept', 'application/vnd.pgrst.object+json') as never;
  }

  /** Zero or one row: the object or null; more rows are a `PGRST116` error. */
  maybeSingle(): RestBuilder<Schema, Row, ElementOf<Result> | null, RelationName, Throws> {
    return this.next({ maybeSingle: true }) as never;
  }

  /** The result as CSV text. */
  csv(): RestBuilder<Schema, Row, string, RelationName, Throws> {
    return this.setHeader('Accept', 'text/csv') as never;
  }

  /** The result as GeoJSON (PostGIS). */
  geojson(): RestBuilder<Schema, Row, Record<string, unknown>, RelationName, Throws> {
    return this.setHeader('Accept', 'application/geo+json') as never;
  }

  /** The query plan (`EXPLAIN`) instead of rows; needs plans enabled on the server. */
  explain<F extends 'text' | 'json' = 'text'>(
    options: {
      analyze?: boolean;
      verbose?: boolean;
      settings?: boolean;
      buffers?: boolean;
      wal?: boolean;
      format?: F;
    } = {},
  ): RestBuilder<
    Schema,
    Row,
    F extends 'json' ? Record<string, unknown>[] : string,
    RelationName,
    Throws
  > {
    const flags = (['analyze', 'verbose', 'settings', 'buffers', 'wal'] as const).filter(
      (f) => options[f],
    );
    const target = this.header('accept') ?? 'application/json';
    return this.setHeader(
      'Accept',
      `application/vnd.pgrst.plan+${options.format ?? 'text'}; for="${target}"; options=${flags.join('|')};`,
    ) as never;
  }

  /** Runs the request in a transaction that is rolled back (when the server allows it). */
  rollback(): this {
    return this.preferring('tx=rollback');
  }

  /** Fails an update/delete that would affect more than `rows` rows (PostgREST 12.2+). */
  maxAffected(rows: number): this {
    return this.preferring('handling=strict', `max-affected=${rows}`);
  }

  /** Drops null-valued keys from the returned objects. */
  stripNulls(): this {
    const accept = this.header('accept');
    if (accept === 'text/csv') throw new RestError('stripNulls() cannot be used with csv()');
    return this.setHeader(
      'Accept',
      accept === 'application/vnd.pgrst.object+json'
        ? `${accept};nulls=stripped`
        : 'application/vnd.pgrst.array+json;nulls=stripped',
    );
  }

  /** Overrides the result type (no runtime effect). */
  returns<T>(): RestBuilder<Schema, Row, T, RelationName, Throws> {
    return this as never;
  }

  /** Rejects with the {@link RestError} instead of resolving `{ error }`. */
  throwOnError(): RestBuilder<Schema, Row, Result, RelationName, true> {
    return this.next({ throws: true }) as never;
  }

  /** A header of the request being built (case-insensitive), if set. */
  private header(name: string): string | undefined {
    for (const [k, v] of Object.entries(this.state.headers)) if (k.toLowerCase() === name) return v;
    return undefined;
  }

  /** The request this builder sends: method, full URL, headers, JSON body. */
  toRequest(): RestRequest {
    const { http, method, schema, query, prefer, body } = this.state;
    const headers: Record<string, string> = { ...this.state.headers };
    headers[method === 'GET' || method === 'HEAD' ? 'Accept-Profile' : 'Content-Profile'] = schema;
    if (method !== 'GET' && method !== 'HEAD') headers['Content-Type'] = 'application/json';
    if (prefer.length) headers.Prefer = prefer.join(', ');
    const qs = new URLSearchParams(query as [string, string][]).toString();
    return {
      method,
      url: `${http.url}${this.state.path}${qs ? `?${qs}` : ''}`,
      headers,
      body:
        body === undefined
          ? undefined
          : JSON.stringify(body, (_k, v) => (typeof v === 'bigint' ? `${v}` : v)),
    };
  }

  /** Sends the request; resolves `{ data, error, count, status, statusText, success }`. */
  // biome-ignore lint/suspicious/noThenProperty: the builder is a thenable by design
  then<A = RestResultOf<Result, Throws>, B = never>(
    onfulfilled?: ((value: RestResultOf<Result, Throws>) => A | PromiseLike<A>) | null,
    onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.execute().then(onfulfilled, onrejected);
  }

  private async execute(): Promise<RestResultOf<Result, Throws>> {
    const result = (await this.run()) as RestResult<Result>;
    (result as { success: boolean }).success = !result.error;
    if (result.error && this.state.throws) throw result.error;
    return result as RestResultOf<Result, Throws>;
  }

  private async run(): Promise<Unmarked<Result>> {
    const fail = (error: RestError, status = error.status, statusText = '') =>
      ({ data: null, error, count: null, status, statusText }) as const;
    let req: RestRequest;
    try {
      req = this.toRequest();
    } catch (cause) {
      return fail(restError(`The request body cannot be serialised: ${cause}`, { cause }));
    }
    const { http, urlLimit, path, signal, method } = this.state;
    if (req.url.length > urlLimit)
      return fail(
        restError(
          `The request URL is ${req.url.length} characters, over the limit of ${urlLimit}`,
          {
            code: 'url_too_long',
            hint: 'Pass long lists to an rpc function (POST body) instead of an in() filter, or raise urlLengthLimit',
          },
        ),
      );
    let res: Response;
    try {
      const q = req.url.indexOf('?');
      res = await http.send({
        method,
        path,
        query: q < 0 ? '' : req.url.slice(q + 1),
        headers: req.headers,
        body: req.body ?? null,
        signal: signal ?? null,
        error: restError,
      });
    } catch (error) {
      return fail(error as RestError);
    }
    return readResponse<Result>(res, req, this.state);
  }
}

/** The element type of an array result. */
export type ElementOf<T> = T extends readonly (infer E)[] ? E : T;

// The filter methods, generated from one table (they differ only by operator).
export interface RestBuilder<
  // biome-ignore lint/correctness/noUnusedVariables: merged with the class
  Schema extends GenericSchema,
  Row extends Record<string, unknown>,
  // biome-ignore lint/correctness/noUnusedVariables: merged with the class
  Result,
  // biome-ignore lint/correctness/noUnusedVariables: merged with the class
  RelationName,
  // biome-ignore lint/correctness/noUnusedVariables: merged with the class
  Throws extends boolean,
> extends Filters<Row> {}

type Impl = (this: RestBuilder, column: string, value: never, options?: never) => RestBuilder;
const proto = RestBuilder.prototype as unknown as Record<string, Impl>;
const simple: Record<string, string> = {
  eq: 'eq',
  neq: 'neq',
  gt: 'gt',
  gte: 'gte',
  lt: 'lt',
  lte: 'lte',
  like: 'like',
  ilike: 'ilike',
  is: 'is',
  isDistinct: 'isdistinct',
  regexMatch: 'match',
  regexIMatch: 'imatch',
  rangeGt: 'sr',
  rangeGte: 'nxl',
  rangeLt: 'sl',
  rangeLte: 'nxr',
  rangeAdjacent: 'adj',
};
for (const [name, op] of Object.entries(simple))
  proto[name] = function (column, value) {
    return this.filter(column, op, value);
  };
for (const [name, op] of Object.entries({
  likeAllOf: 'like(all)',
  likeAnyOf: 'like(any)',
  ilikeAllOf: 'ilike(all)',
  ilikeAnyOf: 'ilike(any)',
}))
  proto[name] = function (column, patterns: string[]) {
    return this.filter(column, op, `{${patterns.join(',')}}`);
  };
for (const [name, op] of Object.entries({ in: 'in', notIn: 'not.in' }))
  proto[name] = function (column, values: FilterValue[]) {
    return this.filter(column, op, inList([...new Set(values)]));
  };
for (const [name, op] of Object.entries({ contains: 'cs', containedBy: 'cd', overlaps: 'ov' }))
  proto[name] = function (column, value: unknown) {
    return this.filter(
      column,
      op,
      typeof value === 'string'
        ? value
        : Array.isArray(value)
          ? arrayLiteral(value)
          : JSON.stringify(value),
    );
  };
proto.textSearch = function (column, query, options: { config?: string; type?: string } = {}) {
  const type = { plain: 'pl', phrase: 'ph', websearch: 'w' }[options.type ?? ''] ?? '';
  return this.filter(column, `${type}fts${options.config ? `(${options.config})` : ''}`, query);
};
proto.match = function (this: RestBuilder, query: Record<string, unknown>) {
  let next = this;
  for (const [column, value] of Object.entries(query))
    if (value !== undefined) next = next.filter(column, 'eq', value);
  return next;
} as unknown as Impl;
proto.not = function (column, operator: string, value: unknown) {
  return this.filter(column, `not.${operator}`, value);
} as Impl;
proto.or = function (
  this: RestBuilder,
  filters: string,
  options: { referencedTable?: string } = {},
) {
  const key = options.referencedTable ? `${options.referencedTable}.or` : 'or';
  return (this as unknown as { param(k: string, v: string): RestBuilder }).param(
    key,
    `(${filters})`,
  );
} as unknown as Impl;

/** A query builder's count/head option. */
export interface CountOptions {
  count?: CountMethod;
}
