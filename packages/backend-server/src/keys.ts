import { SignJWT } from 'jose';

/** The JWT secret the hosted backend's local tooling uses, so tools set up for it work unchanged. */
export const DEFAULT_JWT_SECRET = 'super-secret-jwt-token-with-at-least-32-characters-long';

/** Expiry of the default API keys (as the hosted backend's local tooling issues them). */
const API_KEY_EXP = 1983812996;

/** The two API keys of a project: HS256 JWTs whose `role` claim selects the database role. */
export interface ApiKeys {
  anonKey: string;
  serviceRoleKey: string;
}

function apiKey(role: 'anon' | 'service_role', secret: Uint8Array): Promise<string> {
  return new SignJWT({ iss: 'supabase-demo', role, exp: API_KEY_EXP })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .sign(secret);
}

/** The anon and service_role keys for a JWT secret. */
export async function createApiKeys(jwtSecret: string = DEFAULT_JWT_SECRET): Promise<ApiKeys> {
  const secret = new TextEncoder().encode(jwtSecret);
  const [anonKey, serviceRoleKey] = await Promise.all([
    apiKey('anon', secret),
    apiKey('service_role', secret),
  ]);
  return { anonKey, serviceRoleKey };
}
