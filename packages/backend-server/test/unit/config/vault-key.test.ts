import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkVaultKey, resolveVaultKey, vaultKeyFile } from '../../../src/config/vault-key';

describe("Vault's key", () => {
  it('is made once in the data directory (0600) and read back', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vault-key-'));
    try {
      const first = await resolveVaultKey(undefined, dir);
      expect(first).toMatch(/^[0-9a-f]{64}$/);
      expect((await stat(vaultKeyFile(dir))).mode & 0o777).toBe(0o600);
      expect((await readFile(vaultKeyFile(dir), 'utf8')).trim()).toBe(first);
      expect(await resolveVaultKey(undefined, dir)).toBe(first);
      // The option wins over the file.
      const given = 'ab'.repeat(32);
      expect(await resolveVaultKey(given.toUpperCase(), dir)).toBe(given);
      await writeFile(vaultKeyFile(dir), 'not a key');
      await expect(resolveVaultKey(undefined, dir)).rejects.toThrow(
        /vault\.key: the Vault key must be 64 hexadecimal digits/,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('is random without a data directory, and checked when given', async () => {
    const a = await resolveVaultKey(undefined, null);
    expect(a).not.toBe(await resolveVaultKey(undefined, null));
    expect(() => checkVaultKey('12', 'vaultKey')).toThrow(/64 hexadecimal digits/);
  });
});
