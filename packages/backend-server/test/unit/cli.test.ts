import { execFile } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/index';
import { createApiKeys, DEFAULT_PUBLISHABLE_KEY, DEFAULT_SECRET_KEY } from '../../src/config/keys';
import { builtCli } from '../support/built-cli';

const run = promisify(execFile);
const PACKAGE = join(import.meta.dirname, '..', '..');

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [await builtCli(), ...args], {
      cwd: PACKAGE,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('backend-server CLI', () => {
  it('keys: prints the legacy JWT keys of the secret and the publishable and secret keys', async () => {
    const secret = 'another-secret-that-is-at-least-32-characters';
    const { anonKey, serviceRoleKey } = await createApiKeys(secret);
    const { code, stdout } = await cli('keys', '--jwt-secret', secret);
    expect(code).toBe(0);
    expect(stdout).toBe(
      [
        `anon key:         ${anonKey}`,
        `service_role key: ${serviceRoleKey}`,
        `publishable key:  ${DEFAULT_PUBLISHABLE_KEY}`,
        `secret key:       ${DEFAULT_SECRET_KEY}`,
        '',
      ].join('\n'),
    );
  });

  it('gen signing-key: prints a private JWK the server takes as its signing key', async () => {
    const { code, stdout } = await cli('gen', 'signing-key', '--algorithm', 'RS256');
    expect(code).toBe(0);
    const jwk = JSON.parse(stdout);
    expect(jwk).toMatchObject({
      kty: 'RSA',
      use: 'sig',
      key_ops: ['sign', 'verify'],
      alg: 'RS256',
      ext: true,
    });
    expect(jwk.kid).toMatch(/^[0-9a-f-]{36}$/);
    for (const member of ['n', 'e', 'd', 'p', 'q', 'dp', 'dq', 'qi'])
      expect(jwk[member]).toBeTypeOf('string');
    const config = await resolveConfig({ signingKeys: [jwk] });
    expect(config.signingKeys.current()).toMatchObject({ kid: jwk.kid, alg: 'RS256' });
  });

  it('gen signing-key --append: builds a key list; keys after the first wait in standby', async () => {
    const file = join(await mkdtemp(join(tmpdir(), 'cli-keys-')), 'signing_keys.json');
    expect((await cli('gen', 'signing-key', '--append', file)).code).toBe(0);
    const second = await cli('gen', 'signing-key', '--append', file);
    expect(second.stderr).toMatch(/\(ES256, standby\) added to .* \(now 2 keys\)/);
    const list = JSON.parse(await readFile(file, 'utf8'));
    expect(list.map((k: { alg: string; status?: string }) => [k.alg, k.status])).toEqual([
      ['ES256', undefined],
      ['ES256', 'standby'],
    ]);
    const config = await resolveConfig({ signingKeys: list });
    expect(config.signingKeys.current().kid).toBe(list[0].kid);
    expect(config.signingKeys.jwks().keys).toHaveLength(2);
  });

  it('refuses an unsupported algorithm', async () => {
    const { code, stderr } = await cli('gen', 'signing-key', '--algorithm', 'HS512');
    expect(code).toBe(2);
    expect(stderr).toBe('Unsupported algorithm: HS512 (ES256 or RS256)\n');
  });

  it('start: refuses a storage backend it does not know, and s3 without a bucket', async () => {
    const unknown = await cli('start', '--storage-backend', 'disk');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe('backend-server: --storage-backend must be "file" or "s3"\n');
    const noBucket = await cli('start', '--storage-backend', 's3', '--s3-endpoint', 'http://x');
    expect(noBucket.code).toBe(1);
    expect(noBucket.stderr).toBe('backend-server: --storage-backend s3 needs --s3-bucket\n');
  });
});
