/**
 * The variables `env(NAME)` in a project's `config.toml` reads, as the hosted CLI finds
 * them: the process environment, then the dotenv files of the project folder —
 * `.env.<SUPABASE_ENV>.local`, `.env.local` (not when SUPABASE_ENV is `test`),
 * `.env.<SUPABASE_ENV>`, `.env` — the first that sets a name wins. SUPABASE_ENV defaults
 * to `development`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnv } from 'node:util';

export function projectEnv(root: string): Record<string, string | undefined> {
  const mode = process.env.SUPABASE_ENV || 'development';
  const names = [`.env.${mode}.local`, ...(mode === 'test' ? [] : ['.env.local'])];
  names.push(`.env.${mode}`, '.env');
  const env: Record<string, string | undefined> = {};
  for (const name of names.reverse()) {
    let text: string;
    try {
      text = readFileSync(join(root, name), 'utf8');
    } catch {
      continue;
    }
    Object.assign(env, parseEnv(text));
  }
  return { ...env, ...process.env };
}
