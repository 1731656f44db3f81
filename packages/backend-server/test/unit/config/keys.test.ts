import { decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { createApiKeys, DEFAULT_JWT_SECRET } from '../../../src/config/keys';

// The keys the hosted backend's local tooling prints for its default secret.
const KNOWN_ANON =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZS1kZW1vIiwicm9sZSI6ImFub24iLCJleHAiOjE5ODM4MTI5OTZ9.CRXP1A7WOeoJeXxjNni43kdQwgnWNReilDMblYTn_I0';
const KNOWN_SERVICE =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZS1kZW1vIiwicm9sZSI6InNlcnZpY2Vfcm9sZSIsImV4cCI6MTk4MzgxMjk5Nn0.EGIM96RAZx35lJzdJsyH-qQwv8Hdp7fsn3W0YpN81IU';

describe('createApiKeys', () => {
  it('matches the well-known local keys for the default secret', async () => {
    const keys = await createApiKeys();
    expect(keys.anonKey).toBe(KNOWN_ANON);
    expect(keys.serviceRoleKey).toBe(KNOWN_SERVICE);
  });

  it('signs with a custom secret', async () => {
    const secret = 'another-secret-that-is-at-least-32-characters';
    const { anonKey, serviceRoleKey } = await createApiKeys(secret);
    expect(decodeProtectedHeader(anonKey)).toEqual({ alg: 'HS256', typ: 'JWT' });
    expect(decodeJwt(serviceRoleKey)).toEqual({
      iss: 'supabase-demo',
      role: 'service_role',
      exp: 1983812996,
    });
    await expect(jwtVerify(anonKey, new TextEncoder().encode(secret))).resolves.toBeTruthy();
    await expect(
      jwtVerify(anonKey, new TextEncoder().encode(DEFAULT_JWT_SECRET)),
    ).rejects.toThrow();
  });
});
