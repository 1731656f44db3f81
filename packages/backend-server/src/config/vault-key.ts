/**
 * Vault's root key: the server keeps it outside the database (see
 * src/db/extensions/README.md, "Vault"). Given as an option, else kept in the data directory
 * (`vault.key`, made once, mode 0600), else random for an in-memory database.
 */
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const KEY = /^[0-9a-f]{64}$/;

/** The key file of a data directory. */
export const vaultKeyFile = (dataDir: string): string => join(dataDir, 'vault.key');

/** Checks a configured key (64 hex digits); throws naming the problem. */
export function checkVaultKey(key: string, where: string): string {
  const k = key.trim().toLowerCase();
  if (!KEY.test(k)) throw new Error(`${where}: the Vault key must be 64 hexadecimal digits`);
  return k;
}

/** The root key: the option, else `<dataDir>/vault.key` (created when absent), else random. */
export async function resolveVaultKey(
  option: string | undefined,
  dataDir: string | null,
): Promise<string> {
  if (option) return checkVaultKey(option, 'vaultKey');
  if (!dataDir) return randomBytes(32).toString('hex');
  const file = vaultKeyFile(dataDir);
  try {
    return checkVaultKey(await readFile(file, 'utf8'), file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const key = randomBytes(32).toString('hex');
  // 'wx': two processes never both write one (the data directory is locked anyway).
  await writeFile(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
  return key;
}
