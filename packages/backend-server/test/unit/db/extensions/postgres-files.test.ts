import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeExtensionFiles } from '../../../../src/db/extensions/postgres-files';
import { PROVIDED_MARK } from '../../../../src/db/extensions/provided';

describe('writeExtensionFiles', () => {
  it('writes control file and script once, then leaves them as they are', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ext-'));
    // Every provided extension's two files (pgmq's among them).
    const written = writeExtensionFiles(dir);
    expect(written).toEqual(
      expect.arrayContaining([join(dir, 'pgmq.control'), join(dir, 'pgmq--1.4.4.sql')]),
    );
    expect(written).toEqual(
      expect.arrayContaining([
        join(dir, 'supabase_vault.control'),
        join(dir, 'supabase_vault--0.3.1.sql'),
      ]),
    );
    const control = readFileSync(join(dir, 'pgmq.control'), 'utf8');
    expect(control.split('\n').slice(0, 5)).toEqual([
      PROVIDED_MARK,
      "comment = 'A lightweight message queue. Like AWS SQS and RSMQ but on Postgres.'",
      "default_version = '1.4.4'",
      "schema = 'pgmq'",
      'relocatable = false',
    ]);
    expect(readFileSync(join(dir, 'pgmq--1.4.4.sql'), 'utf8')).toContain(
      'create function pgmq.send(',
    );
    expect(writeExtensionFiles(dir)).toEqual([]);
  });

  it('never replaces a real installation of the extension', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ext-'));
    writeFileSync(join(dir, 'pgmq.control'), "default_version = '1.5.1'\n");
    expect(writeExtensionFiles(dir).filter((path) => path.includes('pgmq'))).toEqual([]);
    expect(readFileSync(join(dir, 'pgmq.control'), 'utf8')).toBe("default_version = '1.5.1'\n");
  });
});
