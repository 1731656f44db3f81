import type { SupabaseClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StartServerOptions } from '../../src/config/index';
import { type RunningServer, startServer } from '../../src/server';
import { databaseKind, startTestServer } from '../support/server';
import { client, uniqueEmail } from './support';

const OPTIONS: StartServerOptions = {
  auth: { rateLimits: { tokenPerIp: 3, otpPerIp: 100, emailPerAddress: 2 } },
};

let server: RunningServer;

beforeAll(async () => {
  server = await startTestServer(OPTIONS);
});
afterAll(() => server?.stop());

/** The answer of one password sign-in of an unknown user: its error code. */
async function signIn(supabase: SupabaseClient): Promise<string | undefined> {
  const { error } = await supabase.auth.signInWithPassword({
    email: 'nobody-at-all@example.com',
    password: 'not-the-password',
  });
  return error?.code;
}

describe(`auth rate limits through supabase-js (${databaseKind()})`, () => {
  it('answers 429 over_request_rate_limit past the token limit', async () => {
    await server.db.query('delete from _auth.rate_limits');
    const supabase = client(server);
    const codes = [];
    for (let i = 0; i < 4; i++) codes.push(await signIn(supabase));
    expect(codes).toEqual([
      'invalid_credentials',
      'invalid_credentials',
      'invalid_credentials',
      'over_request_rate_limit',
    ]);
    const { error } = await supabase.auth.signInWithPassword({
      email: 'nobody-at-all@example.com',
      password: 'x',
    });
    expect(error?.status).toBe(429);
  });

  it('answers 429 over_email_send_rate_limit past the mails of one address', async () => {
    const supabase = client(server);
    const email = uniqueEmail('otp-limit');
    const errors = [];
    for (let i = 0; i < 3; i++) {
      const { error } = await supabase.auth.signInWithOtp({ email });
      errors.push(error ? `${error.status} ${error.code}` : null);
    }
    expect(errors).toEqual([null, null, '429 over_email_send_rate_limit']);
  });

  it.skipIf(databaseKind() === 'pglite')(
    'holds the limit once across two servers on one database, not once per server',
    async () => {
      await server.db.query('delete from _auth.rate_limits');
      const replica = await startServer({
        ...OPTIONS,
        port: 0,
        databaseUrl: server.db.url as string,
      });
      try {
        const one = client(server);
        const two = client(replica);
        const codes = [
          await signIn(one),
          await signIn(two),
          await signIn(one),
          await signIn(two),
          await signIn(one),
        ];
        expect(codes).toEqual([
          'invalid_credentials',
          'invalid_credentials',
          'invalid_credentials',
          'over_request_rate_limit',
          'over_request_rate_limit',
        ]);
      } finally {
        await replica.stop();
      }
    },
  );
});
