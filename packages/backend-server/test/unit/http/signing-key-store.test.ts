import { describe, expect, it } from 'vitest';
import { seededKeys } from '../../../src/http/signing-key-store';
import type { StoredSigningKey } from '../../../src/http/signing-keys';

const jwk = (kid: string) => ({ kty: 'EC', kid });
const row = (kid: string, status: StoredSigningKey['status']): StoredSigningKey => ({
  kid,
  jwk: kid === '' ? null : jwk(kid),
  status,
});

describe('seededKeys', () => {
  it('stores the config as it is in an empty table', () => {
    const config = [row('', 'previous'), row('a', 'current')];
    expect(seededKeys([], config)).toEqual(config);
  });

  it('keeps the statuses the table holds (rotations outlive restarts)', () => {
    const table = [row('', 'previous'), row('a', 'revoked'), row('b', 'current')];
    const config = [row('', 'previous'), row('a', 'current')];
    expect(seededKeys(table, config)).toEqual(table);
  });

  it('adds keys the table does not know; a new current key signs only after the legacy secret', () => {
    const legacySigns = [row('', 'current')];
    expect(seededKeys(legacySigns, [row('', 'previous'), row('a', 'current')])).toEqual([
      row('', 'previous'),
      row('a', 'current'),
    ]);
    const keySigns = [row('', 'previous'), row('a', 'current')];
    expect(seededKeys(keySigns, [row('b', 'current'), row('c', 'previous')])).toEqual([
      ...keySigns,
      row('b', 'standby'),
      row('c', 'previous'),
    ]);
  });
});
