import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_S3_ACCESS_KEY_ID, DEFAULT_S3_SECRET_ACCESS_KEY } from '../../../src/config/keys';
import {
  edgeRuntimeSecrets,
  parseProjectToml,
  projectOptions,
  sizeInBytes,
} from '../../../src/config/project-toml';
import { resolveConfig } from '../../../src/config/resolve';

async function project(files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'project-'));
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(root, path, '..'), { recursive: true });
    await writeFile(join(root, path), text);
  }
  return root;
}

describe('config.toml (hosted CLI layout)', () => {
  it('reads the settings it understands and ignores the rest', async () => {
    const root = await project({
      'config.toml': `
        project_id = "drive"
        [api]
        enabled = true
        port = 54400
        schemas = ["public", "api"]
        max_rows = 500
        [db]
        port = 54322
        [db.seed]
        enabled = true
        sql_paths = ["./seed.sql"]
        [auth]
        site_url = "http://127.0.0.1:3000"
        additional_redirect_urls = ["https://app.example.com/**"]
        jwt_expiry = 600
        refresh_token_reuse_interval = 5
        enable_anonymous_sign_ins = false
        enable_signup = true
        minimum_password_length = 8
        [auth.email]
        enable_confirmations = true
        secure_password_change = true
        otp_expiry = 900
        [auth.rate_limit]
        sign_in_sign_ups = 20
        token_verifications = 10
        email_sent = 4
        [auth.mfa.web_authn]
        enroll_enabled = true
        verify_enabled = false
        [auth.passkey]
        enabled = true
        [auth.oauth_server]
        enabled = true
        authorization_url_path = "/oauth/consent"
        allow_dynamic_registration = true
        [auth.webauthn]
        rp_display_name = "Drive"
        rp_id = "localhost"
        rp_origins = ["http://localhost:5173"]
        [storage]
        file_size_limit = "5GiB"
        [functions.share]
        verify_jwt = false
        [edge_runtime]
        policy = "per_worker"
      `,
      'migrations/0001_a.sql': 'select 1;',
      'seed.sql': 'select 1;',
      'functions/share/index.ts': '',
    });
    expect(await projectOptions(root)).toEqual({
      projectDir: root,
      port: 54400,
      migrationsDir: join(root, 'migrations'),
      seedFile: [join(root, 'seed.sql')],
      functionsDir: join(root, 'functions'),
      rest: { schemas: ['public', 'api'], maxRows: 500 },
      auth: {
        siteUrl: 'http://127.0.0.1:3000',
        disableSignup: false,
        redirectUrls: ['https://app.example.com/**'],
        jwtExpiry: 600,
        refreshTokenReuseInterval: 5,
        anonymousSignIns: false,
        passwordMinLength: 8,
        autoconfirm: false,
        securePasswordChange: true,
        otpExpiry: 900,
        rateLimits: { tokenPerIp: 20, otpPerIp: 10, emailPerAddress: 4 },
        passkey: { enabled: true },
        oauthServer: {
          enabled: true,
          allowDynamicRegistration: true,
          authorizationUrlPath: '/oauth/consent',
        },
        webauthn: {
          rpId: 'localhost',
          rpDisplayName: 'Drive',
          rpOrigins: ['http://localhost:5173'],
        },
        mfa: { webauthn: { enroll: true, verify: false } },
      },
      storage: { fileSizeLimit: 5 * 1024 ** 3 },
    });
  });

  it('works without config.toml, and skips what is turned off or missing', async () => {
    expect(await projectOptions(await project({ 'migrations/0001.sql': '' }))).toMatchObject({
      migrationsDir: expect.stringMatching(/migrations$/),
    });
    const root = await project({
      'config.toml': '[db.migrations]\nenabled = false\n[db.seed]\nenabled = false\n',
      'migrations/0001.sql': '',
      'seed.sql': '',
    });
    expect(await projectOptions(root)).toEqual({ projectDir: root });
  });

  it('names the file and the key of a setting it cannot use', async () => {
    const bad = await project({ 'config.toml': '[api]\nport = "fast"\n' });
    await expect(projectOptions(bad)).rejects.toThrow(
      `${join(bad, 'config.toml')}: api.port must be a number`,
    );
    const broken = await project({ 'config.toml': '[api\nport = 1\n' });
    await expect(projectOptions(broken)).rejects.toThrow(join(broken, 'config.toml'));
    const seeds = await project({ 'config.toml': '[db.seed]\nsql_paths = ["a.sql", 2]\n' });
    await expect(projectOptions(seeds)).rejects.toThrow(
      `${join(seeds, 'config.toml')}: db.seed.sql_paths must be a list of file paths or glob patterns`,
    );
    await expect(projectOptions(join(tmpdir(), 'no-such-project-dir'))).rejects.toThrow(
      'does not exist',
    );
  });

  it('refuses bad [storage.buckets.*] and [edge_runtime.secrets], naming the file and key', async () => {
    const cases: [string, string][] = [
      ['[storage.buckets.pics]\npublic = "yes"\n', 'storage.buckets.pics.public must be a boolean'],
      [
        '[storage.buckets.pics]\nfile_size_limit = "50 parsecs"\n',
        'storage.buckets.pics.file_size_limit must be a size such as "50MiB", not "50 parsecs"',
      ],
      [
        '[storage.buckets.pics]\nallowed_mime_types = ["png"]\n',
        'storage.buckets.pics.allowed_mime_types must be a list of MIME types',
      ],
      [
        '[storage.buckets.pics]\nobjects_path = "./nowhere"\n',
        'storage.buckets.pics.objects_path: ',
      ],
      [
        '[storage.buckets."a/b"]\npublic = true\n',
        'storage.buckets.a/b: "a/b" is not a valid bucket name',
      ],
      ['[edge_runtime.secrets]\nPORT = 5\n', 'edge_runtime.secrets.PORT must be a string'],
    ];
    for (const [toml, message] of cases) {
      const root = await project({ 'config.toml': toml });
      await expect(projectOptions(root)).rejects.toThrow(
        `${join(root, 'config.toml')}: ${message}`,
      );
    }
    const missing = await project({
      'config.toml': '[storage.buckets.pics]\nobjects_path = "./nowhere"\n',
    });
    await expect(projectOptions(missing)).rejects.toThrow(
      `${join(missing, 'nowhere')} does not exist`,
    );
  });

  it('reads buckets, seed globs and secrets as the hosted CLI does', async () => {
    const root = await project({
      'config.toml': `
        [db.seed]
        sql_paths = ["./seeds/b/*.sql", "./seeds/*.sql", "seeds/a.sql", "./none/*.sql"]
        [storage]
        file_size_limit = "10MiB"
        [storage.buckets.pics]
        public = true
        allowed_mime_types = ["image/*"]
        objects_path = "./files"
        [storage.buckets.docs]
        file_size_limit = "5MB"
      `,
      'seeds/b/z.sql': '',
      'seeds/b.sql': '',
      'seeds/a.sql': '',
      'seeds/a.txt': '',
      'files/x.txt': '',
    });
    const options = await projectOptions(root);
    expect(options.seedFile).toEqual(
      ['seeds/b/z.sql', 'seeds/a.sql', 'seeds/b.sql'].map((f) => join(root, f)),
    );
    expect(options.storage).toEqual({
      fileSizeLimit: 10 * 1024 ** 2,
      buckets: {
        pics: {
          public: true,
          fileSizeLimit: 10 * 1024 ** 2,
          allowedMimeTypes: ['image/*'],
          objectsPath: join(root, 'files'),
        },
        docs: { fileSizeLimit: 5 * 1024 ** 2 },
      },
    });
    const toml = parseProjectToml(
      '[edge_runtime.secrets]\nstripe_key = "sk_test"\nsupabase_thing = "x"\nempty = ""\n',
    );
    expect(edgeRuntimeSecrets(toml)).toEqual({ STRIPE_KEY: 'sk_test' });
  });

  it('reads enabled external providers it implements, and manual linking', async () => {
    const root = await project({
      'config.toml': `
        [auth]
        enable_manual_linking = true
        [auth.external.google]
        enabled = true
        client_id = "53566906701-abc.apps.googleusercontent.com"
        secret = "env(PROJECT_TEST_NO_SUCH_SECRET)"
        redirect_uri = ""
        skip_nonce_check = true
        [auth.external.github]
        enabled = false
        client_id = "gh"
        [auth.external.apple]
        enabled = true
        client_id = "not implemented here, ignored"
      `,
    });
    expect((await projectOptions(root)).auth).toEqual({
      manualLinking: true,
      external: {
        google: { clientId: '53566906701-abc.apps.googleusercontent.com', skipNonceCheck: true },
      },
    });
  });

  it('reads [storage.s3_protocol] enabled; the server defaults and checks the rest', async () => {
    const off = await project({ 'config.toml': '[storage.s3_protocol]\nenabled = false\n' });
    expect((await projectOptions(off)).storage).toEqual({ s3Protocol: { enabled: false } });
    const config = await resolveConfig({ projectDir: off });
    expect(config.storage.s3Protocol).toMatchObject({ enabled: false, region: 'local' });
    const on = await resolveConfig({});
    expect(on.storage.s3Protocol).toEqual({
      enabled: true,
      region: 'local',
      accessKeyId: DEFAULT_S3_ACCESS_KEY_ID,
      secretAccessKey: DEFAULT_S3_SECRET_ACCESS_KEY,
    });
    await expect(resolveConfig({ storage: { s3Protocol: { region: 'a b' } } })).rejects.toThrow(
      'storage.s3Protocol.region must be a non-empty string',
    );
  });

  it('replaces env(NAME) values with the environment', () => {
    process.env.PROJECT_TEST_SITE = 'https://drive.example.com';
    expect(
      parseProjectToml(
        '[auth]\nsite_url = "env(PROJECT_TEST_SITE)"\nx = "env(PROJECT_TEST_UNSET)"\n',
      ),
    ).toEqual({ auth: { site_url: 'https://drive.example.com', x: undefined } });
  });

  it('reads sizes as the CLI does (binary units)', () => {
    expect(sizeInBytes('50MiB', 'k')).toBe(50 * 1024 ** 2);
    expect(sizeInBytes('50MB', 'k')).toBe(50 * 1024 ** 2);
    expect(sizeInBytes('1.5 GB', 'k')).toBe(1.5 * 1024 ** 3);
    expect(sizeInBytes('512', 'k')).toBe(512);
    expect(sizeInBytes(2048, 'k')).toBe(2048);
    expect(() => sizeInBytes('lots', 'storage.file_size_limit')).toThrow(
      'config.toml: storage.file_size_limit must be a size such as "50MiB", not "lots"',
    );
  });
});
