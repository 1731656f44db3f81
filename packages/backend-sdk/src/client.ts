/**
 * `createClient(url, key, options)`: one HTTP layer per project, shared by the
 * capabilities, with REST, functions, storage and tus sending the signed-in user's access
 * token, and realtime following every auth change.
 */
import { AuthClient } from './auth/client';
import type { AuthOptions } from './auth/types';
import { FunctionsClient } from './functions/index';
import { createHttp, type Fetch, type Http, type HttpOptions } from './http/index';
import type { RealtimeChannel } from './realtime/channel';
import { RealtimeClient, type RealtimeOptions } from './realtime/client';
import { RestClient } from './rest/client';
import type { SchemaName } from './rest/types';
import { StorageClient } from './storage/index';

/** Options of {@link createClient}. */
export interface ClientOptions<SchemaN extends string = string> {
  /** Options shared by every capability. */
  global?: {
    /** Headers sent with every request. */
    headers?: Record<string, string>;
    /** The fetch implementation; default `globalThis.fetch`. */
    fetch?: Fetch;
    /** Timeout of each request, its retries included, in ms; default none. */
    timeout?: number;
    /** Retries of idempotent requests on 503/520/network errors; default 3. */
    retries?: number;
  };
  /** Auth options: session storage, auto refresh, flow type, lock, timers. */
  auth?: AuthOptions;
  /** REST options. */
  db?: {
    /** Default schema; `public` unless given. */
    schema?: SchemaN;
    /** Longest URL sent (default 8000); longer requests fail before sending. */
    urlLengthLimit?: number;
  };
  /** Realtime options: `transport` (the WebSocket constructor; `ws` on Node 20), `vsn`, `worker`, … */
  realtime?: RealtimeOptions;
  /** Options of the functions capability. */
  functions?: Record<string, never>;
  /**
   * The access token of another auth provider (third-party auth: Firebase Auth, Auth0,
   * Cognito, Clerk, WorkOS), asked for before every request: REST, storage, functions and
   * realtime joins send it (the key when it gives null). `client.auth` is then unusable:
   * touching it throws, as supabase-js does.
   *
   * @example
   * const client = createClient(url, publishableKey, {
   *   accessToken: async () => (await firebase.auth().currentUser?.getIdToken()) ?? null,
   * });
   */
  accessToken?: () => Promise<string | null>;
}

/** The client of one project: `auth`, `from`, `rpc`, `schema`, `functions`, `storage`, `channel`. */
export interface Client<
  // biome-ignore lint/suspicious/noExplicitAny: untyped default
  Database = any,
  Name extends string = 'public' extends SchemaName<Database> ? 'public' : SchemaName<Database>,
> {
  /** Auth: sign-in flows, session, events, admin API. */
  auth: AuthClient;
  /** REST on the default schema (its methods, also bound: `from`, `rpc`, `schema`). */
  rest: RestClient<Database, Name>;
  /** Starts a REST request on a table or view. */
  from: RestClient<Database, Name>['from'];
  /** Calls a Postgres function. */
  rpc: RestClient<Database, Name>['rpc'];
  /** REST on another exposed schema. */
  schema: RestClient<Database, Name>['schema'];
  /** Edge functions. */
  functions: FunctionsClient;
  /** Storage: buckets, objects, resumable uploads. */
  storage: StorageClient;
  /** The realtime socket (joined channels follow every auth change). */
  realtime: RealtimeClient;
  /** Creates a realtime channel; `subscribe()` joins it. */
  channel: RealtimeClient['channel'];
  /** Leaves and forgets a channel. */
  removeChannel(channel: RealtimeChannel): ReturnType<RealtimeClient['removeChannel']>;
  /** Leaves and forgets every channel. */
  removeAllChannels(): ReturnType<RealtimeClient['removeAllChannels']>;
  /** The HTTP layer with the user's token (for capabilities added later). */
  http: Http;
  /** The options the client was created with. */
  options: ClientOptions;
}

/**
 * Creates the client of one project. Throws a `BackendError` (`invalid_argument`) for an
 * unusable URL or an empty key.
 *
 * @example
 * import { createClient } from '@app/backend-sdk';
 * const client = createClient('https://<ref>.supabase.co', '<anon key>');
 * const { data, error } = await client.from('todos').select('id, title');
 */
export function createClient<
  // biome-ignore lint/suspicious/noExplicitAny: untyped default
  Database = any,
  Name extends string & SchemaName<Database> = 'public' extends SchemaName<Database>
    ? 'public'
    : SchemaName<Database>,
>(url: string, key: string, options: ClientOptions<Name> = {}): Client<Database, Name> {
  const base: HttpOptions = { url, key, ...options.global };
  const token = options.accessToken;
  const auth = token
    ? (new Proxy({} as AuthClient, {
        get: (_, name) => {
          throw Error(
            `@supabase/supabase-js: Supabase Client is configured with the accessToken option, accessing supabase.auth.${String(name)} is not possible`,
          );
        },
      }) as AuthClient)
    : new AuthClient(createHttp(base), options.auth);
  const http = createHttp({ ...base, accessToken: token ?? (() => auth.getAccessToken()) });
  const rest = new RestClient<Database, Name>(http, options.db?.schema, options.db?.urlLengthLimit);
  const realtime = new RealtimeClient(http, options.realtime);
  // Sign-in, refresh and sign-out reach every joined channel (the key when signed out).
  token ||
    auth.onAuthStateChange((event, session) => {
      if (event !== 'INITIAL_SESSION' && event !== 'PASSWORD_RECOVERY') {
        void realtime.sessionToken(session?.access_token ?? null);
      }
    });
  return {
    auth,
    rest,
    from: rest.from.bind(rest),
    rpc: rest.rpc.bind(rest),
    schema: rest.schema.bind(rest),
    functions: new FunctionsClient(http),
    storage: new StorageClient(http),
    realtime,
    channel: realtime.channel.bind(realtime),
    removeChannel: realtime.removeChannel.bind(realtime),
    removeAllChannels: realtime.removeAllChannels.bind(realtime),
    http,
    options: options as ClientOptions,
  };
}
