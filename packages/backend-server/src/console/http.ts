/** The console API's request and error helpers, shared by its route files. */
import type { Context } from 'hono';
import type { AppEnv } from '../service-module';
import type { ApiError } from './api-types';

/** The request's JSON object body, or null when it is not one. */
export async function jsonBody(c: Context<AppEnv>): Promise<Record<string, unknown> | null> {
  try {
    const value = (await c.req.json()) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/** A 400 answer `{ message }`. */
export const badRequest = (c: Context<AppEnv>, message: string) =>
  c.json({ message } satisfies ApiError, 400);

/** A 404 answer `{ message }`. */
export const notFound = (c: Context<AppEnv>, message: string) =>
  c.json({ message } satisfies ApiError, 404);

/**
 * Runs `work`; an error Postgres raised (one with a SQLSTATE: a bad queue name, an invalid
 * schedule, …) becomes a 400 with Postgres' message, anything else is thrown on.
 */
export async function orPostgresError(
  c: Context<AppEnv>,
  work: () => Promise<Response>,
): Promise<Response> {
  try {
    return await work();
  } catch (error) {
    const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && typeof message === 'string')
      return badRequest(c, message);
    throw error;
  }
}
