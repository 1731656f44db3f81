/**
 * The REST capability: `from(relation)` (select / insert / upsert / update / delete),
 * `rpc(fn, args)` and `schema(name)` over PostgREST at `/rest/v1`.
 */
import { RestError } from '../errors';
import { createHttp, type Http, type HttpOptions } from '../http/index';
import { cleanColumns, RestBuilder, type RestState } from './builder';
import type { CheckedSelect, ParseSelect } from './select';
import type {
  AnySchema,
  CountMethod,
  GenericSchema,
  Relations,
  SchemaName,
  SchemaOf,
} from './types';

/** Options of a mutation that can count affected rows. */
export interface MutationOptions {
  /** Count the affected rows (`Prefer: count=…`). */
  count?: CountMethod;
}

/** Options of insert and upsert. */
export interface InsertOptions extends MutationOptions {
  /** When false, missing columns take their DEFAULT instead of NULL (`Prefer: missing=default`). */
  defaultToNull?: boolean;
}

/** Options of upsert. */
export interface UpsertOptions extends InsertOptions {
  /** Comma-separated unique columns to resolve conflicts on (default: the primary key). */
  onConflict?: string;
  /** Keep existing rows instead of merging (`resolution=ignore-duplicates`). */
  ignoreDuplicates?: boolean;
}

/** Options of `select()` on a relation. */
export interface SelectOptions {
  /** HEAD request: only the count, no rows. */
  head?: boolean;
  /** Count the matching rows. */
  count?: CountMethod;
}

/** Options of `rpc()`. */
export interface RpcOptions {
  /** HEAD request: no body in the response (only the count). */
  head?: boolean;
  /** GET request with the arguments in the query string (read-only functions). */
  get?: boolean;
  /** Count the rows a set-returning function returns. */
  count?: CountMethod;
}

type RowOf<R> = R extends { Row: infer Row extends Record<string, unknown> } ? Row : never;
type RelsOf<R> = R extends { Relationships: infer X } ? X : unknown;
type InsertOf<R> = R extends { Insert: infer I } ? I : never;
type UpdateOf<R> = R extends { Update: infer U } ? U : never;

/** `Prefer` values: `first`, then the count and (inserts) the missing-column ones. */
const preferOf = (options: InsertOptions, first: string[] = []) => {
  const prefer = [...first];
  if (options.count) prefer.push(`count=${options.count}`);
  if (options.defaultToNull === false) prefer.push('missing=default');
  return prefer;
};

/** The `columns` query parameter of a bulk insert: every key of every row. */
const columnsOf = (values: unknown): [string, string][] => {
  if (!Array.isArray(values)) return [];
  const keys = new Set(values.flatMap((v) => Object.keys(v ?? {})));
  return keys.size ? [['columns', [...keys].map((k) => `"${k}"`).join(',')]] : [];
};

/** Builds requests on one table or view. */
export class TableBuilder<
  Schema extends GenericSchema,
  // biome-ignore lint/suspicious/noExplicitAny: untyped default
  Relation = any,
  Name = unknown,
> {
  /** The request state every builder of this relation starts from. */
  declare readonly state: RestState;

  constructor(state: RestState) {
    this.state = state;
  }

  #build(method: RestState['method'], patch: Partial<RestState> = {}) {
    return new RestBuilder({ ...this.state, method, ...patch });
  }

  /**
   * Reads rows: `columns` in the PostgREST select grammar (columns, `alias:col`,
   * `rel(cols)` embeds, casts, JSON paths, aggregates).
   */
  select<Q extends string = '*'>(
    columns?: CheckedSelect<ParseSelect<Schema, RowOf<Relation>, Name, RelsOf<Relation>, Q>, Q>,
    options: SelectOptions = {},
  ): RestBuilder<
    Schema,
    RowOf<Relation>,
    ParseSelect<Schema, RowOf<Relation>, Name, RelsOf<Relation>, Q>[],
    Name
  > {
    return this.#build(options.head ? 'HEAD' : 'GET', {
      query: [['select', cleanColumns(columns ?? '*')]],
      prefer: preferOf({ count: options.count }),
    }) as never;
  }

  /** Inserts one row or many (`.select()` after it returns them). */
  insert(
    values: InsertOf<Relation> | InsertOf<Relation>[],
    options: InsertOptions = {},
  ): RestBuilder<Schema, RowOf<Relation>, null, Name> {
    return this.#build('POST', {
      body: values,
      query: columnsOf(values),
      prefer: preferOf(options),
    }) as never;
  }

  /** Inserts, or updates rows that conflict on the primary key / `onConflict` columns. */
  upsert(
    values: InsertOf<Relation> | InsertOf<Relation>[],
    options: UpsertOptions = {},
  ): RestBuilder<Schema, RowOf<Relation>, null, Name> {
    const query: [string, string][] =
      options.onConflict === undefined ? [] : [['on_conflict', options.onConflict]];
    return this.#build('POST', {
      body: values,
      query: [...query, ...columnsOf(values)],
      prefer: preferOf(options, [
        `resolution=${options.ignoreDuplicates ? 'ignore' : 'merge'}-duplicates`,
      ]),
    }) as never;
  }

  /** Updates the rows matched by the filters that follow. */
  update(
    values: UpdateOf<Relation>,
    options: MutationOptions = {},
  ): RestBuilder<Schema, RowOf<Relation>, null, Name> {
    return this.#build('PATCH', { body: values, prefer: preferOf(options) }) as never;
  }

  /** Deletes the rows matched by the filters that follow. */
  delete(options: MutationOptions = {}): RestBuilder<Schema, RowOf<Relation>, null, Name> {
    return this.#build('DELETE', { prefer: preferOf(options) }) as never;
  }
}

/** Options of {@link createRestClient} (the HTTP options plus REST ones). */
export interface RestClientOptions extends Omit<HttpOptions, 'url' | 'key'> {
  /** Default schema; `public` unless given. */
  schema?: string;
  /** Longest URL sent (default 8000); longer requests fail with `url_too_long` before sending. */
  urlLengthLimit?: number;
}

type FnOf<S extends GenericSchema, F> = F extends keyof S['Functions'] ? S['Functions'][F] : never;
type RpcRow<R> = R extends readonly (infer E)[]
  ? E extends Record<string, unknown>
    ? E
    : never
  : // biome-ignore lint/suspicious/noExplicitAny: scalar results have no columns
    any;

/** The REST client of one project and schema. */
export class RestClient<
  // biome-ignore lint/suspicious/noExplicitAny: untyped default
  Database = any,
  Name extends string = 'public' extends SchemaName<Database> ? 'public' : SchemaName<Database>,
  Schema extends GenericSchema = SchemaOf<Database, Name>,
> {
  /** The HTTP layer requests go through. */
  declare readonly http: Http;
  /** The schema requests address. */
  declare readonly schemaName: string;
  readonly #urlLimit: number;

  constructor(http: Http, schema = 'public', urlLengthLimit = 8000) {
    this.http = http;
    this.schemaName = schema;
    this.#urlLimit = urlLengthLimit;
  }

  #state(path: string): RestState {
    return {
      http: this.http,
      path: `/rest/v1/${path}`,
      method: 'GET',
      schema: this.schemaName,
      query: [],
      headers: {},
      prefer: [],
      urlLimit: this.#urlLimit,
    };
  }

  /**
   * Starts a request on a table or view.
   *
   * @example
   * const { data, error } = await rest.from('todos').select('id, title').eq('done', false);
   */
  from<T extends string & keyof Relations<Schema>>(
    relation: T,
  ): TableBuilder<Schema, Relations<Schema>[T], T> {
    if (typeof relation !== 'string' || relation.trim() === '')
      throw new RestError('from() needs a table or view name', { code: 'invalid_argument' });
    return new TableBuilder(this.#state(encodeURIComponent(relation)));
  }

  /** The same client addressing another exposed schema. */
  schema<S extends SchemaName<Database>>(name: S): RestClient<Database, S> {
    return new RestClient(this.http, name, this.#urlLimit);
  }

  /**
   * Calls a Postgres function: POST with the arguments as JSON, or GET/HEAD with them in the
   * query string (`get`/`head`).
   *
   * @example
   * const { data } = await rest.rpc('add', { a: 1, b: 2 });
   */
  rpc<F extends string & keyof Schema['Functions']>(
    fn: F,
    args: FnOf<Schema, F>['Args'] = {},
    options: RpcOptions = {},
  ): RestBuilder<Schema, RpcRow<FnOf<Schema, F>['Returns']>, FnOf<Schema, F>['Returns'], F> {
    const isObject = (v: unknown): boolean =>
      v !== null && typeof v === 'object' && (!Array.isArray(v) || v.some(isObject));
    const entries = Object.entries((args ?? {}) as Record<string, unknown>);
    const objectArg = options.head && entries.some(([, v]) => isObject(v));
    const inQuery = !objectArg && (options.head || options.get);
    const prefer = preferOf({ count: options.count });
    if (objectArg) prefer.push('return=minimal');
    return new RestBuilder({
      ...this.#state(`rpc/${encodeURIComponent(fn)}`),
      method: inQuery ? (options.head ? 'HEAD' : 'GET') : 'POST',
      body: inQuery ? undefined : args,
      query: inQuery
        ? entries
            .filter(([, v]) => v !== undefined)
            .map(([k, v]) => [k, Array.isArray(v) ? `{${v.join(',')}}` : `${v}`])
        : [],
      prefer,
    }) as never;
  }
}

/**
 * A REST client alone (no auth capability): pass `accessToken` to send a user's token.
 *
 * @example
 * import { createRestClient } from '@app/backend-sdk/rest';
 * const rest = createRestClient('http://127.0.0.1:54321', anonKey);
 * const { data } = await rest.from('todos').select();
 */
// biome-ignore lint/suspicious/noExplicitAny: untyped default
export function createRestClient<Database = any>(
  url: string,
  key: string,
  options: RestClientOptions = {},
): RestClient<Database> {
  return new RestClient(
    createHttp({ ...options, url, key }),
    options.schema,
    options.urlLengthLimit,
  );
}

export type { AnySchema };
