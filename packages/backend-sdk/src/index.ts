/**
 * `@app/backend-sdk` — the public surface, nothing else.
 */
export { BackendError, type BackendErrorOptions, isBackendError } from './errors';
export * from './rest/index';
