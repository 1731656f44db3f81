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
export * from './rest/index';
