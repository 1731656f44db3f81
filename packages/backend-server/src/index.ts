/**
 * `@app/backend-server` — a Supabase-compatible backend in one Node process.
 */
export type { AuthOptions, RestOptions, ServerConfig, StartServerOptions } from './config';
export type { Database } from './db/index';
export { type ApiKeys, createApiKeys, DEFAULT_JWT_SECRET } from './keys';
export { type RunningServer, startServer } from './server';
