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
    const rest = new RestError('duplicate key', { status: 409, code: '23505', hint: 'h' });
    expect({ ...rest }).toMatchObject({ message: 'duplicate key', code: '23505', hint: 'h' });
    expect(JSON.parse(JSON.stringify(rest))).toMatchObject({ message: 'duplicate key', hint: 'h' });
    const cause = new TypeError('fetch failed');
    expect(new FunctionsError('x', { type: 'fetch', cause }).context).toBe(cause);
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
