/**
 * The data commands of the CLI: `db dump`, `db reset`, `db test`, `migration new`, `export`,
 * `import`, and `s3-keys` (storage/s3/keys-cli.ts).
 * Each opens the database of `--data-dir` (embedded) or `--database-url` itself, holding
 * the data directory's lock so no server runs on it meanwhile.
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { projectOptions } from '../config/project-toml';
import { resolveS3 } from '../config/resolve';
import { resolveVaultKey } from '../config/vault-key';
import { VAULT_KEY_SETTING } from '../db/extensions/vault';
import { type Database, openDatabase } from '../db/index';
import { platformScripts } from '../server';
import type { S3BackendSettings } from '../storage/backends/s3';
import { runS3Keys, S3_KEYS_HELP, S3KeysInputError } from '../storage/s3/keys-cli';
import { defaultTestPaths, findTestFiles, runDbTests } from './db-test';
import { dumpDatabase } from './dump';
import { lockDataDir } from './lock';
import { newMigration } from './migration';
import { exportProject, importProject } from './portable';
import { resetDatabase } from './reset';
import { applyScript, DataError, RESET_AFTER_DUMP } from './restore';
import { runSigningKeys, SIGNING_KEYS_HELP } from './signing-keys-cli';

export const DATA_HELP = `backend-server data commands

  backend-server db dump [-f FILE] [--data-only | --with-data] [-s SCHEMA,…] [DATABASE]
      The project's schema as SQL (default, as the hosted CLI), its rows (--data-only: the
      app's tables and the auth and storage rows), or both (--with-data). Restore with
      psql -f FILE or backend-server import FILE. Writes to stdout unless -f.
  backend-server db reset [--project DIR] [--migrations DIR] [--seed FILE… | --no-seed] [DATABASE]
      A fresh database: every app schema and project row dropped, the migrations and the
      seed applied again, the stored files removed. --project reads the migrations and
      the seed files ([db.seed] sql_paths) of a project folder (hosted CLI layout); the
      other flags win over it. --seed may be repeated (applied in order).
  backend-server db test [PATH…] [--project DIR] [DATABASE]
      Runs the pgTAP tests in PATH (files, or folders searched for *.sql and *.pg; default
      DIR/tests, DIR being --project or backend), each file in a transaction that is rolled
      back, printing their TAP and a summary as pg_prove does; exits 1 when a test fails.
      pgTAP is created for the run (with schema extensions) when the database lacks it.
  backend-server migration new NAME [--migrations DIR]
      Creates DIR/<UTC timestamp>_NAME.sql (default DIR: backend/migrations), with what
      is piped to the command, if anything.
  backend-server export PATH [--project DIR] [DATABASE]
      A portable export of the database and the stored files: a folder (manifest.json,
      database.sql, objects/), the fast format, whose files are read-only hard links of
      the stored ones on the same file system (stored files are never changed in place)
      and copies elsewhere; or, when PATH ends in .tar, one tar file (slower: every byte
      passes through the program).
      An existing PATH is replaced only if it is an empty folder or an export.
  backend-server import PATH [--project DIR] [DATABASE]
      An export (folder or tar) replaces the database's project data and stored files;
      a .sql file (a dump) runs in one transaction. A bad export changes nothing.
      With --project, a config.toml whose [storage] backend is "s3" has the stored files
      read from and written to its [storage.s3] bucket.
${S3_KEYS_HELP}${SIGNING_KEYS_HELP}
  DATABASE: --data-dir DIR (embedded database and stored files) and/or --database-url URL
  (a PostgreSQL server; stored files still in --data-dir when given). Behind a
  transaction-mode pooler, add --direct-url URL (the database itself, as for start): the
  command connects there, since it holds one session throughout.
`;

const OPTIONS = {
  'data-dir': { type: 'string' },
  'database-url': { type: 'string' },
  'direct-url': { type: 'string' },
  file: { type: 'string', short: 'f' },
  'data-only': { type: 'boolean' },
  'with-data': { type: 'boolean' },
  schema: { type: 'string', short: 's', multiple: true },
  migrations: { type: 'string' },
  seed: { type: 'string', multiple: true },
  'no-seed': { type: 'boolean' },
  project: { type: 'string' },
  description: { type: 'string' },
  algorithm: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = ReturnType<typeof parse>['values'];
const parse = (argv: string[]) =>
  parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });

/** Opens the command's database with the data directory locked; `run` gets it and the storage dir. */
async function withDatabase<T>(
  values: Values,
  run: (db: Database, storageDir: string | null) => Promise<T>,
): Promise<T> {
  const dataDir = values['data-dir'] ? resolve(values['data-dir']) : null;
  // Behind a transaction-mode pooler, the database itself: a command holds one session (a
  // dump's snapshot, COPY, advisory locks, LISTEN), which a pooler does not keep.
  const databaseUrl = values['direct-url'] ?? values['database-url'] ?? null;
  if (!dataDir && !databaseUrl) {
    throw new DataError(
      'say which database: --data-dir DIR, --database-url URL or --direct-url URL',
    );
  }
  const unlock = dataDir ? await lockDataDir(dataDir) : null;
  try {
    const db = await openDatabase({
      dataDir: databaseUrl ? undefined : (dataDir ?? undefined),
      databaseUrl: databaseUrl ?? undefined,
      platformSql: platformScripts(),
      // The data directory's Vault key, so `db reset`'s migrations can create secrets.
      settings: dataDir
        ? { [VAULT_KEY_SETTING]: await resolveVaultKey(undefined, dataDir) }
        : undefined,
    });
    try {
      return await run(db, dataDir ? join(dataDir, 'storage') : null);
    } finally {
      await db.close();
    }
  } finally {
    await unlock?.();
  }
}

const needStorage = (storageDir: string | null): string => {
  if (!storageDir) throw new DataError('stored files need a folder: add --data-dir DIR');
  return storageDir;
};

async function readStdin(): Promise<Buffer> {
  if (process.stdin.isTTY) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const say = (line: string) => process.stderr.write(`${line}\n`);

async function dump(values: Values): Promise<void> {
  if (values['data-only'] && values['with-data']) {
    throw new DataError('--data-only and --with-data cannot go together');
  }
  const schemas = values.schema?.flatMap((s) => s.split(',')).filter(Boolean) ?? null;
  await withDatabase(values, async (db) => {
    say('Dumping the database…');
    const result = await dumpDatabase(db, {
      schema: !values['data-only'],
      data: Boolean(values['data-only'] || values['with-data']),
      schemas,
    });
    const out = values.file ? createWriteStream(values.file) : process.stdout;
    for (const chunk of result.chunks) {
      if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
    }
    if (values.file) {
      await new Promise<void>((r, j) =>
        out.end((error?: Error | null) => (error ? j(error) : r())),
      );
      say(`Dumped ${result.tables} tables, ${result.rows} rows to ${values.file}.`);
    }
  });
}

async function reset(values: Values): Promise<void> {
  const project = values.project ? await projectOptions(values.project) : {};
  const given = values.migrations ?? project.migrationsDir;
  const migrationsDir = given ? resolve(given) : null;
  const seeds = values.seed?.length ? values.seed : [project.seedFile ?? []].flat();
  const seedFiles = values['no-seed'] ? [] : seeds.map((file) => resolve(file));
  await withDatabase(values, async (db, storageDir) => {
    say('Resetting the database…');
    const done = await resetDatabase(db, {
      platformSql: platformScripts(),
      migrationsDir,
      seedFiles,
      storageDir,
    });
    for (const file of done.migrations) say(`Applying migration ${file}…`);
    if (done.seeded) for (const file of seedFiles) say(`Seeding data from ${file}…`);
    say(`Finished db reset${storageDir ? ' (stored files removed)' : ''}.`);
  });
}

/** `db test`: resolves to the exit code (1 when a test file failed). */
async function test(paths: string[], values: Values): Promise<number> {
  const files = await findTestFiles(paths.length > 0 ? paths : defaultTestPaths(values.project));
  return withDatabase(values, async (db) => {
    const result = await runDbTests(db, files, (line) => process.stdout.write(`${line}\n`));
    return result.ok ? 0 : 1;
  });
}

/** The S3 backend's settings of `--project DIR`'s config.toml, null for the file backend. */
async function projectS3(values: Values): Promise<S3BackendSettings | null> {
  if (!values.project) return null;
  try {
    return resolveS3((await projectOptions(values.project)).storage ?? {});
  } catch (error) {
    throw new DataError((error as Error).message);
  }
}

/**
 * Runs `run` with the storage folder, or on the S3 backend without --data-dir a scratch
 * folder of its own (its objects are in the bucket), removed after.
 */
async function withStorage<T>(
  storageDir: string | null,
  s3: S3BackendSettings | null,
  run: (dir: string) => Promise<T>,
): Promise<T> {
  if (storageDir || !s3) return run(needStorage(storageDir));
  const scratch = await mkdtemp(join(tmpdir(), 'backend-server-objects-'));
  try {
    return await run(scratch);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

async function exportCommand(file: string, values: Values): Promise<void> {
  const s3 = await projectS3(values);
  await withDatabase(values, async (db, storageDir) => {
    const summary =
      storageDir || s3
        ? await withStorage(storageDir, s3, (dir) => exportProject(db, dir, file, s3))
        : await exportProject(db, join(resolve('.'), '.no-storage'), file);
    say(
      `Exported ${summary.rows} rows of ${summary.tables} tables and ${summary.objects} objects (${summary.objectBytes} bytes) to ${file}.`,
    );
  });
}

async function importCommand(file: string, values: Values): Promise<void> {
  const info = await stat(file).catch(() => null);
  if (!info) throw new DataError(`${file} does not exist`);
  if (info.isFile() && /\.sql$/i.test(file)) {
    const script = await readFile(file);
    await withDatabase(values, async (db) => {
      try {
        await db.transaction((tx) => applyScript(tx, script));
      } catch (error) {
        if (error instanceof DataError) throw error;
        throw new DataError(
          `${file} could not be applied, nothing was changed: ${(error as Error).message}`,
        );
      } finally {
        await db.exec(RESET_AFTER_DUMP).catch(() => {});
      }
      say(`Applied ${file}.`);
    });
    return;
  }
  const s3 = await projectS3(values);
  await withDatabase(values, async (db, storageDir) => {
    const summary = await withStorage(storageDir, s3, (dir) =>
      importProject(db, dir, file, platformScripts(), s3),
    );
    say(
      `Imported ${summary.rows} rows of ${summary.tables} tables and ${summary.objects} objects from ${file}.`,
    );
  });
}

/** Runs a data command; resolves to the exit code. Errors of the user's input exit 1 with a message. */
export async function runDataCommand(argv: string[]): Promise<number> {
  let values: Values;
  let positionals: string[];
  try {
    ({ values, positionals } = parse(argv));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${DATA_HELP}`);
    return 2;
  }
  const [command, sub, arg] = positionals;
  if (values.help) {
    process.stdout.write(DATA_HELP);
    return 0;
  }
  try {
    if (command === 'db' && sub === 'dump') await dump(values);
    else if (command === 'db' && sub === 'reset') await reset(values);
    else if (command === 'db' && sub === 'test') return await test(positionals.slice(2), values);
    else if (command === 'migration' && sub === 'new' && arg) {
      const dir = resolve(values.migrations ?? 'backend/migrations');
      const path = await newMigration(dir, arg, await readStdin());
      process.stdout.write(`Created new migration at ${path}.\n`);
    } else if (command === 'export' && sub) await exportCommand(sub, values);
    else if (command === 'import' && sub) await importCommand(sub, values);
    else if (command === 's3-keys') {
      const out = (line: string) => process.stdout.write(`${line}\n`);
      await withDatabase(values, (db) => runS3Keys(db, sub, arg, values.description, out));
    } else if (command === 'signing-keys') {
      const out = (line: string) => process.stdout.write(`${line}\n`);
      await withDatabase(values, (db) => runSigningKeys(db, sub, arg, values.algorithm, out));
    } else {
      process.stderr.write(
        `Unknown or incomplete command: ${positionals.join(' ')}\n\n${DATA_HELP}`,
      );
      return 2;
    }
  } catch (error) {
    if (!(error instanceof DataError || error instanceof S3KeysInputError)) throw error;
    process.stderr.write(`backend-server: ${error.message}\n`);
    return 1;
  }
  return 0;
}
