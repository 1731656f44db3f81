import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { BackendError, isBackendError } from './errors';

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
