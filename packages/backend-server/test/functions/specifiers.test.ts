import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/index';
import { type ImportMap, mapSpecifier, stripJsonc } from '../../src/functions/import-map';
import { FunctionSettings, parseDotEnv, parseVerifyJwt } from '../../src/functions/settings';
import { packagePath, planSpecifier } from '../../src/functions/specifiers';

describe('functions: import specifiers of the hosted runtime', () => {
  it('maps npm: and jsr: to installed package paths, versions dropped', () => {
    expect(planSpecifier('npm:jose@6')).toEqual({
      kind: 'package',
      specifier: 'jose',
      from: 'npm:jose@6',
    });
    expect(planSpecifier('npm:@supabase/supabase-js@2.45.0/dist/module')).toMatchObject({
      specifier: '@supabase/supabase-js/dist/module',
    });
    expect(planSpecifier('jsr:@supabase/supabase-js@2')).toMatchObject({
      kind: 'package',
      specifier: '@supabase/supabase-js',
    });
    expect(planSpecifier('npm:/zod')).toMatchObject({ specifier: 'zod' });
  });

  it('maps npm CDN URLs to packages and the old std serve to its shim', () => {
    expect(planSpecifier('https://esm.sh/@supabase/supabase-js@2.39.3?target=deno')).toMatchObject({
      specifier: '@supabase/supabase-js',
    });
    expect(planSpecifier('https://esm.sh/stable/preact@10/hooks')).toMatchObject({
      specifier: 'preact/hooks',
    });
    expect(planSpecifier('https://cdn.jsdelivr.net/npm/lodash-es@4/+esm')).toMatchObject({
      specifier: 'lodash-es',
    });
    expect(planSpecifier('https://deno.land/std@0.168.0/http/server.ts')).toEqual({
      kind: 'std-http',
    });
  });

  it('drops type-only imports and refuses other URLs with a clear message', () => {
    expect(planSpecifier('jsr:@supabase/functions-js/edge-runtime.d.ts')).toEqual({
      kind: 'empty',
    });
    const plan = planSpecifier('https://deno.land/x/oak@v12/mod.ts');
    expect(plan.kind).toBe('error');
    expect(plan.kind === 'error' && plan.message).toMatch(/cannot be fetched/);
    expect(planSpecifier('./local.ts')).toEqual({ kind: 'default' });
    expect(planSpecifier('hono')).toEqual({ kind: 'default' });
    expect(packagePath('@scope-without-name')).toBeNull();
    expect(packagePath('')).toBeNull();
  });
});

describe('functions: settings files', () => {
  it('reads verify_jwt per function from config.toml and ignores everything else', () => {
    const toml = `
      project_id = "x"
      [functions.alpha]
      verify_jwt = false # webhook
      import_map = "./import_map.json"
      [functions."beta-2"]
      verify_jwt = true
      [auth]
      verify_jwt = false
      [functions.gamma]
      enabled = false
    `;
    expect(parseVerifyJwt(toml)).toEqual({ alpha: false, 'beta-2': true });
  });

  it('parses .env, quotes and comments included, and skips reserved SUPABASE_ names', () => {
    expect(
      parseDotEnv('A=1\n# note\nB="two words"\nexport C=3\nSUPABASE_URL=http://x\nEMPTY=\n'),
    ).toEqual({ A: '1', B: 'two words', C: '3', EMPTY: '' });
  });
});

describe('functions: env and verify_jwt precedence', () => {
  it('gives SUPABASE_DB_URL when the database has a URL, and the functions.env secrets; options win over config.toml', async () => {
    const config = await resolveConfig({
      databaseUrl: 'postgres://app@db.internal:5432/app',
      functions: { verifyJwt: { open: false } },
    });
    await rm(config.storageDir, { recursive: true, force: true });
    config.url = 'http://127.0.0.1:1';
    const settings = new FunctionSettings(config);
    expect(await settings.env()).toEqual({
      SUPABASE_URL: 'http://127.0.0.1:1',
      SUPABASE_ANON_KEY: config.anonKey,
      SUPABASE_SERVICE_ROLE_KEY: config.serviceRoleKey,
      SUPABASE_DB_URL: 'postgres://app@db.internal:5432/app',
    });
    expect(await settings.verifyJwt('open')).toBe(false);
    expect(await settings.verifyJwt('other')).toBe(true);
    const secrets = await resolveConfig({ functions: { env: { SITE: 'http://app.test' } } });
    await rm(secrets.storageDir, { recursive: true, force: true });
    expect(await new FunctionSettings(secrets).env()).toMatchObject({ SITE: 'http://app.test' });
    await expect(
      resolveConfig({ functions: { env: { SUPABASE_URL: 'http://x' } } }),
    ).rejects.toThrow('functions.env: SUPABASE_URL is reserved');
    const closed = await resolveConfig({ functions: { verifyJwt: false } });
    await rm(closed.storageDir, { recursive: true, force: true });
    expect(await new FunctionSettings(closed).verifyJwt('any')).toBe(false);
  });

  it('takes functions.envFile instead of functions/.env, over [edge_runtime.secrets], and reads both again when they change', async () => {
    const root = await mkdtemp(join(tmpdir(), 'functions-env-'));
    await mkdir(join(root, 'functions'));
    await writeFile(join(root, 'functions', '.env'), 'FROM_DEFAULT_FILE=1\n');
    await writeFile(join(root, 'custom.env'), 'SHARED=file\nFILE_ONLY=yes\n');
    await writeFile(
      join(root, 'config.toml'),
      '[edge_runtime.secrets]\nshared = "toml"\ntoml_only = "t"\n',
    );
    const config = await resolveConfig({
      projectDir: root,
      functions: { envFile: join(root, 'custom.env') },
    });
    await rm(config.storageDir, { recursive: true, force: true });
    const settings = new FunctionSettings(config);
    const env = await settings.env();
    expect(env).toMatchObject({ SHARED: 'file', FILE_ONLY: 'yes', TOML_ONLY: 't' });
    expect(env.FROM_DEFAULT_FILE).toBeUndefined();
    // A later stamp: the file is read again.
    await writeFile(
      join(root, 'config.toml'),
      '[edge_runtime.secrets]\ntoml_only = "changed"\n# a longer file\n',
    );
    expect((await settings.env()).TOML_ONLY).toBe('changed');
    await rm(root, { recursive: true, force: true });
  });
});

describe('functions: import maps', () => {
  it('reads deno.jsonc (comments, trailing commas) without touching strings', () => {
    const text =
      '{\n  // note\n  "imports": { "a": "npm:a@1", "url": "https://x.test/a//b", /* c */ },\n}';
    expect(JSON.parse(stripJsonc(text))).toEqual({
      imports: { a: 'npm:a@1', url: 'https://x.test/a//b' },
    });
  });

  it('maps exact keys, then the longest prefix; the later map wins; relative targets become paths', () => {
    const maps: ImportMap[] = [
      { imports: { lib: 'npm:lib@1', 'std/': 'jsr:@std/' }, base: '/fns' },
      { imports: { lib: 'npm:lib@2', '@/': './src/', '@/deep/': '../deep/' }, base: '/fns/one' },
    ];
    expect(mapSpecifier('lib', maps)).toBe('npm:lib@2');
    expect(mapSpecifier('std/path', maps)).toBe('jsr:@std/path');
    expect(mapSpecifier('@/a.ts', maps)).toBe('/fns/one/src/a.ts');
    expect(mapSpecifier('@/deep/b.ts', maps)).toBe('/fns/deep/b.ts');
    expect(mapSpecifier('other', maps)).toBeNull();
  });
});
