/**
 * `@app/backend-react` — React bindings for `@app/backend-sdk`.
 */
export { errorMessage } from './error-message';
export { BackendProvider, type BackendProviderProps, useBackendClient } from './provider';
