import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { parseEnv } from 'node:util';
import type { ServerConfig } from '../config/index';
import { projectEnv } from '../config/project-env';
import { edgeRuntimeSecrets, functionVerifyJwt, parseProjectToml } from '../config/project-toml';
import { stamp } from './compile';

/**
 * `[functions.<name>] verify_jwt = true|false` entries of a Supabase `config.toml` (read with
 * the server's one `config.toml` parser; everything else in the file is ignored here).
 */
export function parseVerifyJwt(toml: string, source?: string): Record<string, boolean> {
  return functionVerifyJwt(parseProjectToml(toml, source));
}

/** A file read again only when its stamp changes. */
class WatchedFile<T> {
  private stampSeen = '';
  private value: T;

  constructor(
    private readonly path: string | null,
    private readonly parse: (text: string) => T,
    private readonly empty: T,
  ) {
    this.value = empty;
  }

  async get(): Promise<T> {
    if (!this.path) return this.empty;
    const now = stamp(this.path);
    if (now !== this.stampSeen) {
      this.stampSeen = now;
      this.value = now === 'missing' ? this.empty : this.parse(await readFile(this.path, 'utf8'));
    }
    return this.value;
  }
}

/** Entries of the functions' env file (`functionsDir/.env`); names starting with `SUPABASE_` are reserved and skipped. */
export function parseDotEnv(text: string): Record<string, string> {
  const parsed = parseEnv(text) as Record<string, string>;
  const result: Record<string, string> = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (!key.startsWith('SUPABASE_')) result[key] = value;
  }
  return result;
}

/** What the functions read from `config.toml`. */
interface TomlSettings {
  verifyJwt: Record<string, boolean>;
  secrets: Record<string, string>;
}

/**
 * Per-function settings that live in files next to the functions and may change while the
 * server runs: `verify_jwt` (options, then the project's `config.toml`, else
 * `<functionsDir>/../config.toml`) and the env, lowest first: that `config.toml`'s
 * `[edge_runtime.secrets]`, the env file (`functions.envFile`, else `<functionsDir>/.env`),
 * the `functions.env` option, the platform's variables.
 */
export class FunctionSettings {
  private readonly toml: WatchedFile<TomlSettings>;
  private readonly dotenv: WatchedFile<Record<string, string>>;

  constructor(private readonly config: ServerConfig) {
    const dir = config.functionsDir;
    // The project's config.toml, else the one beside the functions folder (the CLI layout).
    const toml = config.projectDir ?? (dir ? dirname(dir) : null);
    const path = toml ? join(toml, 'config.toml') : null;
    this.toml = new WatchedFile(
      path,
      (text) => {
        const parsed = parseProjectToml(
          text,
          path ?? undefined,
          toml ? projectEnv(toml) : undefined,
        );
        return {
          verifyJwt: functionVerifyJwt(parsed),
          secrets: edgeRuntimeSecrets(parsed, path ?? undefined),
        };
      },
      { verifyJwt: {}, secrets: {} },
    );
    const envFile = config.functions.envFile ?? (dir ? join(dir, '.env') : null);
    this.dotenv = new WatchedFile(envFile, parseDotEnv, {});
  }

  async verifyJwt(name: string): Promise<boolean> {
    const { all, byName } = this.config.functions.verifyJwt;
    return byName[name] ?? (await this.toml.get()).verifyJwt[name] ?? all ?? true;
  }

  /** The env a function's worker starts with; the platform's variables win over the rest. */
  async env(): Promise<Record<string, string>> {
    const { config } = this;
    return {
      ...(await this.toml.get()).secrets,
      ...(await this.dotenv.get()),
      ...config.functions.env,
      SUPABASE_URL: config.url,
      SUPABASE_ANON_KEY: config.anonKey,
      SUPABASE_SERVICE_ROLE_KEY: config.serviceRoleKey,
      ...(config.databaseUrl ? { SUPABASE_DB_URL: config.databaseUrl } : {}),
    };
  }
}
