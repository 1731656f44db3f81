import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/config/resolve';

describe('publicUrl', () => {
  it("is the server's URL when given (no trailing slash), its own address otherwise", async () => {
    expect((await resolveConfig({ publicUrl: 'https://api.example.com/' })).url).toBe(
      'https://api.example.com',
    );
    expect((await resolveConfig({ publicUrl: 'http://10.0.0.5:54321' })).url).toBe(
      'http://10.0.0.5:54321',
    );
    // Filled in by startServer once it listens.
    expect((await resolveConfig({})).url).toBe('');
  });

  it('refuses what is not an http(s) URL', async () => {
    await expect(resolveConfig({ publicUrl: 'api.example.com' })).rejects.toThrow(
      'publicUrl must be an http(s) URL, not "api.example.com"',
    );
    await expect(resolveConfig({ publicUrl: 'ftp://api.example.com' })).rejects.toThrow(
      'publicUrl must be an http(s) URL',
    );
  });
});
