import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { genTypes } from '../../src/rest/gen-types';
import type { RunningServer } from '../../src/server';
import { databaseKind, startTestServer } from '../support/server';
import { SCHEMA_SQL } from './fixture';

let server: RunningServer | null = null;
let source = '';

beforeAll(async () => {
  const migrationsDir = await mkdtemp(join(tmpdir(), 'typegen-'));
  await writeFile(join(migrationsDir, '0001_schema.sql'), SCHEMA_SQL);
  if (databaseKind() === 'postgres') {
    server = await startTestServer({ migrationsDir });
    source = await genTypes({ databaseUrl: server.db.url as string });
  } else {
    source = await genTypes({ migrationsDir });
  }
}, 120_000);
afterAll(() => server?.stop());

// A typed client written against the generated file, type-checked by the compiler.
const USAGE = `
import { createClient } from '@supabase/supabase-js';
import type { Database, Enums, Tables, TablesInsert, TablesUpdate } from './database.types';

const client = createClient<Database>('http://localhost', 'key');

export async function use() {
  const { data } = await client.from('countries').select('id, name').eq('id', 1);
  const id: number | undefined = data?.[0]?.id;
  const row: Tables<'countries'> = { id: 1, name: 'x', code: null, population: null, info: null, created: null };
  const insert: TablesInsert<'items'> = {};
  const update: TablesUpdate<'projects'> = { name: 'renamed' };
  const status: Enums<'status'> = 'doing';
  const sum = await client.rpc('add', { a: 1, b: 2 });
  const total: number | null = sum.data;
  const view: Tables<'big_cities'> = { id: null, name: null, population: null };
  // @ts-expect-error 'later' is not a status
  const wrong: Enums<'status'> = 'later';
  // @ts-expect-error name is required on insert
  const missing: TablesInsert<'countries'> = { id: 1 };
  return [id, row, insert, update, status, total, view, wrong, missing];
}
`;

describe(`gen types (${databaseKind()})`, () => {
  it('prints the hosted generator shape', () => {
    expect(source).toContain('export type Database = {');
    expect(source).toMatch(
      /countries: \{\n\s+Row: \{\n\s+id: number\n\s+name: string\n\s+code: string \| null/,
    );
    expect(source).toMatch(/Insert: \{\n\s+id: number\n\s+name: string\n\s+code\?: string \| null/);
    expect(source).toContain('foreignKeyName: "cities_country_id_fkey"');
    expect(source).toContain('status: "todo" | "doing" | "done"');
    expect(source).toMatch(/add: \{\n\s+Args: \{ a: number; b: number \}\n\s+Returns: number/);
    expect(source).toContain('Returns: Database["public"]["Tables"]["projects"]["Row"][]');
    expect(source).toMatch(/ {6}pick:\n/);
    expect(source).toContain('| { Args: { a: number }; Returns: string }');
    expect(source).toContain('| { Args: { a: string }; Returns: string }');
    for (const helper of ['Tables<', 'TablesInsert<', 'TablesUpdate<', 'Enums<', 'CompositeTypes<'])
      expect(source).toContain(`export type ${helper}`);
  });

  it('compiles, and a typed supabase-js client accepts and rejects what it should', async () => {
    const dir = join(process.cwd(), '.artifacts', `typegen-${databaseKind()}`);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'database.types.ts'), source);
    await writeFile(join(dir, 'usage.ts'), USAGE);
    const program = ts.createProgram([join(dir, 'usage.ts')], {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      skipLibCheck: true,
      noUnusedLocals: false,
    });
    const diagnostics = ts
      .getPreEmitDiagnostics(program)
      .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    expect(diagnostics).toEqual([]);
  }, 60_000);
});
