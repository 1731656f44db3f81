import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import {
  AuthError,
  BackendError,
  FunctionsError,
  isAuthError,
  isBackendError,
  isFunctionsError,
  isRestError,
  RestError,
} from '../../src/errors';
import { StorageError } from '../../src/storage/errors';

describe('BackendError', () => {
  it('carries status, code, details and cause', () => {
    const cause = new TypeError('fetch failed');
    const error = new BackendError('Network failure', {
      status: 0,
      code: 'network_error',
      details: { attempt: 2 },
      cause,
    });
    expect(error).toBeInstanceOf(Error);
    expect(error.message).toBe('Network failure');
    expect(error.status).toBe(0);
    expect(error.code).toBe('network_error');
    expect(error.details).toEqual({ attempt: 2 });
    expect(error.cause).toBe(cause);
    expect(JSON.parse(JSON.stringify(error))).toEqual({
      name: 'BackendError',
      message: 'Network failure',
      status: 0,
      code: 'network_error',
      details: { attempt: 2 },
    });
  });

  it('defaults to status 0, empty code and null details', () => {
    const error = new BackendError('x');
    expect([error.status, error.code, error.details, error.cause]).toEqual([
      0,
      '',
      null,
      undefined,
    ]);
  });
});

describe('isBackendError', () => {
  it('recognises SDK errors and rejects look-alikes', () => {
    expect(isBackendError(new BackendError('x'))).toBe(true);
    expect(isBackendError(new Error('x'))).toBe(false);
    expect(isBackendError({ status: 400, code: 'x', message: 'x' })).toBe(false);
    expect(isBackendError(null)).toBe(false);
    expect(isBackendError('BackendError')).toBe(false);
  });

  it('works across realms, where instanceof does not', () => {
    const brand = Symbol.for('@app/backend-sdk/error');
    const foreign = runInNewContext('const e = new Error("x"); e[brand] = true; e', { brand });
    expect(foreign instanceof Error).toBe(false);
    expect(isBackendError(foreign)).toBe(true);
  });
});

describe('capability errors', () => {
  it('each subclass is a BackendError with its own kind and guard', () => {
    const auth = new AuthError('Invalid login credentials', {
      status: 400,
      code: 'invalid_credentials',
    });
    const rest = new RestError('duplicate key', {
      status: 409,
      code: '23505',
      details: 'Key (id)=(1)',
      hint: null,
    });
    const fn = new FunctionsError('Edge Function returned a non-2xx status code', {
      type: 'http',
      status: 418,
      body: { error: 'teapot' },
    });
    expect([auth, rest, fn].every(isBackendError)).toBe(true);
    expect([isAuthError(auth), isAuthError(rest), isAuthError(fn)]).toEqual([true, false, false]);
    expect([isRestError(auth), isRestError(rest), isRestError(fn)]).toEqual([false, true, false]);
    expect([isFunctionsError(auth), isFunctionsError(rest), isFunctionsError(fn)]).toEqual([
      false,
      false,
      true,
    ]);
    expect(rest).toMatchObject({
      name: 'PostgrestError',
      kind: 'rest',
      hint: null,
      details: 'Key (id)=(1)',
    });
    expect(fn).toMatchObject({
      name: 'FunctionsHttpError',
      type: 'http',
      body: { error: 'teapot' },
      response: null,
    });
    expect(auth.name).toBe('AuthApiError');
  });

  it('names errors as the official client does, and keeps message in spreads and JSON', () => {
    const names = [
      new AuthError('x', { status: 422, code: 'weak_password', reasons: ['length'] }),
      new AuthError('x', { status: 400, code: 'session_missing' }),
      new AuthError('x', { status: 0, code: 'network_error' }),
      new AuthError('x', { status: 503 }),
      new AuthError('x', { status: 0, code: 'invalid_argument' }),
      new FunctionsError('x', { type: 'relay' }),
      new FunctionsError('x', { type: 'fetch' }),
    ].map((e) => e.name);
    expect(names).toEqual([
      'AuthWeakPasswordError',
      'AuthSessionMissingError',
      'AuthRetryableFetchError',
      'AuthRetryableFetchError',
      'AuthError',
      'FunctionsRelayError',
      'FunctionsFetchError',
    ]);
    const weak = new AuthError('Password is too short', {
      status: 422,
      code: 'weak_password',
      reasons: ['length'],
    });
    expect(weak.reasons).toEqual(['length']);
    expect(JSON.parse(JSON.stringify(weak)).reasons).toEqual(['length']);
    const cause = new TypeError('fetch failed');
    expect(new FunctionsError('x', { type: 'fetch', cause }).context).toBe(cause);
  });

  it("has the official client's own enumerable keys, in its order, and its JSON", () => {
    // What supabase-js 2.109's classes give for the same failures (read from its errors).
    const rest = new RestError('duplicate key', { status: 409, code: '23505', details: 'd' });
    expect(Object.keys(rest)).toEqual(['name', 'details', 'hint', 'code']);
    expect(JSON.stringify(rest)).toBe(
      '{"name":"PostgrestError","message":"duplicate key","details":"d","hint":null,"code":"23505"}',
    );
    expect({ ...rest }).toEqual({
      name: 'PostgrestError',
      details: 'd',
      hint: null,
      code: '23505',
    });
    const auth = new AuthError('Invalid login credentials', { status: 400, code: 'bad' });
    expect(Object.keys(auth)).toEqual(['__isAuthError', 'name', 'status', 'code']);
    expect(JSON.stringify(auth)).toBe(
      '{"name":"AuthApiError","message":"Invalid login credentials","status":400,"code":"bad"}',
    );
    const weak = new AuthError('m', { status: 422, code: 'weak_password', reasons: ['length'] });
    expect(Object.keys(weak)).toEqual(['__isAuthError', 'name', 'status', 'code', 'reasons']);
    const storage = new StorageError('Object not found', { status: 400, statusCode: '404' });
    expect(Object.keys(storage)).toEqual([
      '__isStorageError',
      'namespace',
      'name',
      'status',
      'statusCode',
    ]);
    expect(JSON.stringify(storage)).toBe(
      '{"name":"StorageApiError","message":"Object not found","status":400,"statusCode":"404"}',
    );
    const fn = new FunctionsError('Edge Function returned a non-2xx status code', {
      type: 'http',
      response: new Response('x'),
    });
    expect(Object.keys(fn)).toEqual(['name', 'context']);
    expect(JSON.stringify(fn)).toBe(
      '{"name":"FunctionsHttpError","message":"Edge Function returned a non-2xx status code","context":{}}',
    );
    // The SDK's own fields stay readable, only not listed.
    expect([rest.kind, rest.status, auth.kind, storage.code, fn.type]).toEqual([
      'rest',
      409,
      'auth',
      '',
      'http',
    ]);
  });

  it('guards recognise errors from another realm by brand and kind', () => {
    const brand = Symbol.for('@app/backend-sdk/error');
    const foreign = runInNewContext(
      'const e = new Error("x"); e[brand] = true; e.kind = "rest"; e',
      {
        brand,
      },
    );
    expect(isRestError(foreign)).toBe(true);
    expect(isAuthError(foreign)).toBe(false);
  });
});
