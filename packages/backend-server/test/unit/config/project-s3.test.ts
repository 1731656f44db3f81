import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectS3 } from '../../../src/config/project-buckets';
import { parseProjectToml } from '../../../src/config/project-toml';
import { resolveConfig } from '../../../src/config/resolve';

describe('[storage] backend and [storage.s3]', () => {
  it('reads the S3 backend settings, secrets through env()', () => {
    const toml = parseProjectToml(
      `[storage]\nbackend = "s3"\n[storage.s3]\nbucket = "objects"\nendpoint = "http://127.0.0.1:7480"\nforce_path_style = true\naccess_key_id = "env(KEY_ID)"\nsecret_access_key = "env(SECRET)"\n`,
      'config.toml',
      { KEY_ID: 'AK', SECRET: 'SK' },
    );
    expect(projectS3(toml, 'config.toml')).toEqual({
      backend: 's3',
      s3: {
        bucket: 'objects',
        endpoint: 'http://127.0.0.1:7480',
        region: undefined,
        forcePathStyle: true,
        accessKeyId: 'AK',
        secretAccessKey: 'SK',
      },
    });
    expect(projectS3(parseProjectToml('[storage]\n'), 'config.toml')).toBeUndefined();
  });

  it('refuses a bad backend, a missing bucket and a wrong type', () => {
    const read = (text: string) => () => projectS3(parseProjectToml(text), 'config.toml');
    expect(read('[storage]\nbackend = "gcs"\n')).toThrow('storage.backend must be "file" or "s3"');
    expect(read('[storage.s3]\nregion = "eu"\n')).toThrow('storage.s3.bucket is required');
    expect(read('[storage.s3]\nbucket = "b"\nforce_path_style = "yes"\n')).toThrow(
      'storage.s3.force_path_style must be a boolean',
    );
  });

  it('resolves defaults, and needs a bucket for the s3 backend', async () => {
    const directory = join(tmpdir(), 'not-created');
    const config = await resolveConfig({
      storage: { directory, backend: 's3', s3: { bucket: 'objects' } },
    });
    expect(config.storage.s3).toEqual({
      bucket: 'objects',
      endpoint: null,
      region: 'us-east-1',
      forcePathStyle: false,
      accessKeyId: null,
      secretAccessKey: null,
    });
    expect((await resolveConfig({ storage: { directory } })).storage.s3).toBeNull();
    await expect(resolveConfig({ storage: { directory, backend: 's3' } })).rejects.toThrow(
      "storage.backend 's3' needs storage.s3.bucket",
    );
  });
});
