import { parseArgs } from 'node:util';
import { createApiKeys, DEFAULT_JWT_SECRET } from './keys';

const HELP = `backend-server — a Supabase-compatible backend in one Node process

Usage:
  backend-server keys [--jwt-secret S]   print the anon and service_role keys
  backend-server --help                  show this help

Options:
  --jwt-secret S   JWT secret (default: the local tooling's well-known secret)
  -h, --help       show this help
`;

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      'jwt-secret': { type: 'string', default: DEFAULT_JWT_SECRET },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const command = positionals[0];
  if (values.help || command === undefined) {
    process.stdout.write(HELP);
    return 0;
  }
  if (command === 'keys') {
    const keys = await createApiKeys(values['jwt-secret']);
    process.stdout.write(
      `anon key:         ${keys.anonKey}\nservice_role key: ${keys.serviceRoleKey}\n`,
    );
    return 0;
  }
  process.stderr.write(`Unknown command: ${command}\n\n${HELP}`);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
