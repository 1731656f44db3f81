/**
 * `@app/backend-server` — a Supabase-compatible backend in one Node process.
 */
export { type ApiKeys, createApiKeys, DEFAULT_JWT_SECRET } from './keys';
