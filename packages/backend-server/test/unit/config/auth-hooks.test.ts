import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveHooks } from '../../../src/config/auth-hooks';
import { projectOptions } from '../../../src/config/project-toml';
import { resolveConfig } from '../../../src/config/resolve';

const SECRET = `v1,whsec_${Buffer.alloc(32, 7).toString('base64')}`;
const OTHER = `v1,whsec_${Buffer.alloc(32, 9).toString('base64')}`;

async function projectWith(toml: string): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'hooks-toml-'));
  await writeFile(join(root, 'config.toml'), toml);
  return root;
}

afterEach(() => {
  delete process.env.SEND_EMAIL_HOOK_SECRETS;
});

describe('[auth.hook.*] in config.toml', () => {
  it('reads enabled hooks with their uri and secrets (env() too); disabled ones are left out', async () => {
    process.env.SEND_EMAIL_HOOK_SECRETS = `${SECRET}|${OTHER}`;
    const root = await projectWith(`
      [auth.hook.custom_access_token]
      enabled = true
      uri = "pg-functions://postgres/public/custom_access_token_hook"

      [auth.hook.send_email]
      enabled = true
      uri = "https://hooks.example.com/send-email"
      secrets = "env(SEND_EMAIL_HOOK_SECRETS)"

      [auth.hook.send_sms]
      enabled = false
      uri = "pg-functions://postgres/public/send_sms"

      [auth.hook.before_user_created]
      enabled = true
      uri = "pg-functions://postgres/auth/before-user-created-hook"

      [auth.hook.mfa_verification_attempt]
      enabled = true
      uri = "pg-functions://postgres/public/mfa_attempt"

      [auth.hook.password_verification_attempt]
      enabled = true
      uri = "http://127.0.0.1:9999/password"
      secrets = "${SECRET}"

      [auth.hook.not_a_hook]
      enabled = true
      uri = "pg-functions://postgres/public/x"
    `);
    const options = await projectOptions(root);
    expect(options.auth?.hooks).toEqual({
      customAccessToken: { uri: 'pg-functions://postgres/public/custom_access_token_hook' },
      sendEmail: {
        uri: 'https://hooks.example.com/send-email',
        secrets: `${SECRET}|${OTHER}`,
      },
      beforeUserCreated: { uri: 'pg-functions://postgres/auth/before-user-created-hook' },
      mfaVerificationAttempt: { uri: 'pg-functions://postgres/public/mfa_attempt' },
      passwordVerificationAttempt: { uri: 'http://127.0.0.1:9999/password', secrets: SECRET },
    });
    const config = await resolveConfig({ projectDir: root });
    expect(config.auth.hooks.sendEmail).toEqual({
      uri: 'https://hooks.example.com/send-email',
      kind: 'http',
      fn: null,
      secrets: [SECRET.slice(9), OTHER.slice(9)],
    });
    expect(config.auth.hooks.beforeUserCreated).toMatchObject({
      kind: 'pg',
      fn: '"auth"."before-user-created-hook"',
    });
    expect(config.auth.hooks.sendSms).toBeUndefined();
  });

  it('refuses a hook table without a uri, or a uri that is not a string', async () => {
    const noUri = await projectWith('[auth.hook.send_email]\nenabled = true\n');
    await expect(projectOptions(noUri)).rejects.toThrow(/auth\.hook\.send_email\.uri is required/);
    const number = await projectWith('[auth.hook.send_sms]\nenabled = true\nuri = 5\n');
    await expect(projectOptions(number)).rejects.toThrow(
      /auth\.hook\.send_sms\.uri must be a string/,
    );
  });
});

describe('auth.hooks option', () => {
  it('checks secrets as the hosted CLI does', () => {
    expect(() => resolveHooks({ sendEmail: 'https://h.example.com' })).toThrow(
      /an HTTP hook needs at least one secret/,
    );
    expect(() =>
      resolveHooks({ sendEmail: { uri: 'https://h.example.com', secrets: 'whsec_abc' } }),
    ).toThrow(/must be formatted as "v1,whsec_<base64_encoded_secret>"/);
    expect(() =>
      resolveHooks({ sendSms: { uri: 'pg-functions://postgres/public/f', secrets: SECRET } }),
    ).toThrow(/secrets are for HTTP hooks, not pg-functions/);
    expect(() => resolveHooks({ other: 'pg-functions://postgres/public/f' } as never)).toThrow(
      /unknown hook/,
    );
  });

  it('leaves disabled hooks out and takes a bare string as an enabled hook', () => {
    expect(
      resolveHooks({
        sendEmail: { enabled: false, uri: 'https://h.example.com' },
        customAccessToken: 'pg-functions://postgres/public/f',
      }),
    ).toEqual({
      customAccessToken: {
        uri: 'pg-functions://postgres/public/f',
        kind: 'pg',
        fn: '"public"."f"',
        secrets: [],
      },
    });
  });
});
