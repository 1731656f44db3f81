/**
 * `@app/backend-sdk` — the public surface, nothing else.
 */
export * from './auth/index';
export { type Client, type ClientOptions, createClient } from './client';
export {
  BackendError,
  type BackendErrorOptions,
  type ErrorKind,
  FunctionsError,
  type FunctionsErrorOptions,
  type FunctionsErrorType,
  isBackendError,
  isFunctionsError,
  isRestError,
  RestError,
  type RestErrorOptions,
} from './errors';
export * from './functions/index';
export {
  type AccessTokenGetter,
  createHttp,
  type Fetch,
  type Http,
  type HttpOptions,
  type HttpRequest,
} from './http/index';
export {
  type BroadcastMessage,
  type ChannelConfig,
  type ChannelState,
  type PostgresChange,
  type PostgresChangesFilter,
  PostgresFilter,
  type Presence,
  type PresenceState,
  pgFilter,
  RealtimeChannel,
  RealtimeClient,
  RealtimeError,
  type RealtimeOptions,
  type SubscribeStatus,
  type Vsn,
  type WebSocketConstructor,
  type WebSocketLike,
} from './realtime/index';
export * from './rest/index';
export * from './storage/index';
// The upload engine's building blocks (chunk sources, URL stores, protocol helpers, the
// queue) are in `@app/backend-sdk/tus`; the root exports what apps use with `client.storage`.
export {
  DEFAULT_CHUNK_SIZE,
  DEFAULT_RETRY_DELAYS,
  memoryUrlStore,
  ResumableUpload,
  type ResumableUploadOptions,
  UploadError,
  type UploadProgress,
  type UploadResult,
  type UploadSource,
  type UploadState,
  type UrlStore,
} from './tus/index';
