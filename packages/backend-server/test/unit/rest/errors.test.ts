import { describe, expect, it } from 'vitest';
import { errorResponse, fromPgError, RestError, statusForSqlState } from '../../../src/rest/errors';
import { negotiate } from '../../../src/rest/http/media';
import { parsePrefer } from '../../../src/rest/http/prefer';

describe('SQLSTATE → HTTP', () => {
  it('maps like the hosted REST service', () => {
    const cases: [string, string, boolean, number][] = [
      ['08006', '', false, 503],
      ['23505', '', false, 409],
      ['23503', '', false, 409],
      ['25006', '', false, 405],
      ['21000', 'UPDATE requires a WHERE clause', false, 400],
      ['21000', 'more than one row', false, 500],
      ['22023', 'role "x" does not exist', false, 401],
      ['22023', 'other', false, 400],
      ['28000', '', false, 403],
      ['42883', 'function f() does not exist', false, 404],
      ['42P01', '', false, 404],
      ['42501', '', false, 401],
      ['42501', '', true, 403],
      ['P0001', '', false, 400],
      ['P0002', '', false, 500],
      ['53300', '', false, 503],
      ['53400', '', false, 500],
      ['57P01', '', false, 503],
      ['XX000', '', false, 500],
      ['PT402', '', false, 402],
      ['22P02', '', false, 400],
    ];
    for (const [code, message, authed, status] of cases)
      expect([code, statusForSqlState(code, message, authed)]).toEqual([code, status]);
  });

  it('reads RAISE SQLSTATE PGRST and rejects bad JSON with PGRST121', () => {
    const e = fromPgError(
      {
        code: 'PGRST',
        message: '{"code":"X1","message":"m","hint":"h"}',
        detail: '{"status":418,"headers":{"A":"b"}}',
      },
      false,
    );
    expect([e.status, e.body(), e.headers]).toEqual([
      418,
      { code: 'X1', message: 'm', details: null, hint: 'h' },
      { A: 'b' },
    ]);
    expect(fromPgError({ code: 'PGRST', message: 'nope' }, false).code).toBe('PGRST121');
  });

  it('writes all four keys, Proxy-Status and WWW-Authenticate on 401', async () => {
    const res = errorResponse(new RestError(401, '42501', 'permission denied'));
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    expect(res.headers.get('proxy-status')).toBe('PostgREST; error=42501');
    expect(await res.json()).toEqual({
      code: '42501',
      message: 'permission denied',
      details: null,
      hint: null,
    });
  });
});

describe('Prefer and Accept', () => {
  it('merges preferences and is strict only when asked', () => {
    expect(
      parsePrefer('return=representation, count=exact,tx=rollback, max-affected=5, bogus'),
    ).toMatchObject({
      return: 'representation',
      count: 'exact',
      tx: 'rollback',
      maxAffected: 5,
    });
    expect(() => parsePrefer('handling=strict, bogus=1')).toThrow(RestError);
  });

  it('negotiates media types, tolerating plan parameters', () => {
    expect(negotiate('application/vnd.pgrst.object+json;nulls=stripped', false)).toEqual({
      kind: 'object',
      stripNulls: true,
    });
    expect(negotiate('text/csv', false)).toEqual({ kind: 'csv' });
    expect(
      negotiate(
        'application/vnd.pgrst.plan+json; for="application/json"; options=analyze|verbose;',
        false,
        true,
      ),
    ).toEqual({
      kind: 'plan',
      format: 'json',
      for: 'application/json',
      options: ['analyze', 'verbose'],
    });
    expect(negotiate('image/png, */*', false)).toEqual({ kind: 'json', stripNulls: false });
    expect(() => negotiate('image/png', false)).toThrow(RestError);
    // Plans only where the plan is enabled (db-plan-enabled), as on the hosted backend.
    expect(() =>
      negotiate('application/vnd.pgrst.plan+json; for="application/json"; options=analyze;', false),
    ).toThrow(
      'None of these media types are available: application/vnd.pgrst.plan+json; for="application/json"; options=analyze',
    );
    expect(() => negotiate('image/png;q=0.5, text/xml', false)).toThrow(
      'None of these media types are available: image/png, text/xml',
    );
  });
});
