import type { ForeignKey, SchemaCache, Table } from './schema/types';

/**
 * TypeScript `Database` type of a schema cache, in the shape the hosted generator prints
 * (`supabase gen types typescript`): Tables Row/Insert/Update/Relationships, Views,
 * Functions Args/Returns, Enums, CompositeTypes, and the Tables<>/TablesInsert<>/
 * TablesUpdate<>/Enums<>/CompositeTypes<> helpers, so typed clients work.
 */

const NUMBER = new Set([
  'smallint',
  'integer',
  'bigint',
  'real',
  'double precision',
  'numeric',
  'int2',
  'int4',
  'int8',
  'float4',
  'float8',
  'oid',
]);
const BOOLEAN = new Set(['boolean', 'bool']);
const JSON_T = new Set(['json', 'jsonb']);

const key = (name: string) =>
  /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : JSON.stringify(name);

class Printer {
  private lines: string[] = [];
  private depth = 0;
  line(text = '') {
    this.lines.push(text ? '  '.repeat(this.depth) + text : '');
  }
  open(text: string) {
    this.line(text);
    this.depth++;
  }
  close(text = '}') {
    this.depth--;
    this.line(text);
  }
  toString() {
    return `${this.lines.join('\n')}\n`;
  }
}

function tsType(cache: SchemaCache, schema: string, pgType: string): string {
  let base = pgType.replace(/\(.*\)$/, '').trim();
  let arrays = 0;
  while (base.endsWith('[]')) {
    arrays++;
    base = base.slice(0, -2);
  }
  let t: string;
  const unq = base.replace(/^"|"$/g, '');
  const [maybeSchema, maybeName] = unq.includes('.')
    ? (unq.split('.') as [string, string])
    : [schema, unq];
  if (NUMBER.has(base)) t = 'number';
  else if (BOOLEAN.has(base)) t = 'boolean';
  else if (JSON_T.has(base)) t = 'Json';
  else if (base === 'void') t = 'undefined';
  else if (base === 'record' || base === 'unknown') t = 'unknown';
  else if (cache.enums.some((e) => e.schema === maybeSchema && e.name === maybeName))
    t = `Database[${JSON.stringify(maybeSchema)}]["Enums"][${JSON.stringify(maybeName)}]`;
  else if (cache.composites.some((c) => c.schema === maybeSchema && c.name === maybeName))
    t = `Database[${JSON.stringify(maybeSchema)}]["CompositeTypes"][${JSON.stringify(maybeName)}]`;
  else t = 'string';
  return t + '[]'.repeat(arrays);
}

function relationships(p: Printer, cache: SchemaCache, table: Table) {
  const fks = cache.foreignKeys.filter(
    (fk) => fk.schema === table.schema && fk.table === table.name,
  );
  if (fks.length === 0) {
    p.line('Relationships: []');
    return;
  }
  p.open('Relationships: [');
  for (const fk of fks) relationship(p, cache, table, fk);
  p.close(']');
}

function relationship(p: Printer, _cache: SchemaCache, table: Table, fk: ForeignKey) {
  const oneToOne = table.uniques.some(
    (u) => u.length === fk.columns.length && u.every((c) => fk.columns.includes(c)),
  );
  p.open('{');
  p.line(`foreignKeyName: ${JSON.stringify(fk.name)}`);
  p.line(`columns: ${JSON.stringify(fk.columns)}`);
  p.line(`isOneToOne: ${oneToOne}`);
  p.line(`referencedRelation: ${JSON.stringify(fk.refTable)}`);
  p.line(`referencedColumns: ${JSON.stringify(fk.refColumns)}`);
  p.close('},');
}

function tableBlock(p: Printer, cache: SchemaCache, t: Table, isView: boolean) {
  p.open(`${key(t.name)}: {`);
  p.open('Row: {');
  for (const c of t.columns) {
    const ty = tsType(cache, t.schema, c.type);
    p.line(`${key(c.name)}: ${ty}${c.nullable || isView ? ' | null' : ''}`);
  }
  p.close();
  if (!isView || t.insertable) {
    p.open('Insert: {');
    for (const c of t.columns) {
      const ty = tsType(cache, t.schema, c.type);
      if (c.identity === 'a' || c.generated) p.line(`${key(c.name)}?: never`);
      else {
        const optional = c.nullable || c.default !== null || c.identity !== '' || isView;
        p.line(
          `${key(c.name)}${optional ? '?' : ''}: ${ty}${c.nullable || isView ? ' | null' : ''}`,
        );
      }
    }
    p.close();
  }
  if (!isView || t.updatable) {
    p.open('Update: {');
    for (const c of t.columns) {
      const ty = tsType(cache, t.schema, c.type);
      if (c.identity === 'a' || c.generated) p.line(`${key(c.name)}?: never`);
      else p.line(`${key(c.name)}?: ${ty}${c.nullable || isView ? ' | null' : ''}`);
    }
    p.close();
  }
  relationships(p, cache, t);
  p.close();
}

function functionsBlock(p: Printer, cache: SchemaCache, schema: string) {
  const groups = [...cache.functions.entries()].filter(([k]) => k.startsWith(`${schema}.`));
  if (groups.length === 0) {
    p.line('[_ in never]: never');
    return;
  }
  for (const [, overloads] of groups) {
    const name = overloads[0]?.name as string;
    const variants = overloads.map((fn) => {
      let args: string;
      if (fn.args.length === 0) args = 'never';
      else if (fn.args.length === 1 && fn.args[0]?.name === '')
        args = `{ "": ${tsType(cache, schema, fn.args[0].type)} }`;
      else
        args = `{ ${fn.args
          .map((a) => `${key(a.name)}${a.hasDefault ? '?' : ''}: ${tsType(cache, schema, a.type)}`)
          .join('; ')} }`;
      let returns: string;
      // A row type of a schema that is not generated: its columns, written out.
      const isReturnType = (c: { schema: string; name: string }) =>
        `${c.schema}.${c.name}` === fn.returnType || c.name === fn.returnType;
      const hidden = cache.composites.some(isReturnType)
        ? undefined
        : cache.resultRowTypes.find(isReturnType);
      if (hidden) {
        returns = `{ ${hidden.attributes.map((a) => `${key(a.name)}: ${tsType(cache, schema, a.type)} | null`).join('; ')} }`;
      } else if (fn.returnTable) {
        const t = cache.tables.get(`${fn.returnTable.schema}.${fn.returnTable.name}`);
        const kind = t && t.kind !== 'v' && t.kind !== 'm' ? 'Tables' : 'Views';
        returns = `Database[${JSON.stringify(fn.returnTable.schema)}]["${kind}"][${JSON.stringify(fn.returnTable.name)}]["Row"]`;
      } else if (fn.outColumns.length > 0) {
        returns = `{ ${fn.outColumns.map((c) => `${key(c.name)}: ${tsType(cache, schema, c.type)}`).join('; ')} }`;
      } else {
        returns = tsType(cache, schema, fn.returnType);
      }
      if (fn.retset) returns = `${returns.startsWith('{') ? `(${returns})` : returns}[]`;
      return { args, returns };
    });
    if (variants.length === 1) {
      const v = variants[0] as { args: string; returns: string };
      p.open(`${key(name)}: {`);
      p.line(`Args: ${v.args}`);
      p.line(`Returns: ${v.returns}`);
      p.close();
    } else {
      p.line(`${key(name)}:`);
      for (const v of variants) p.line(`  | { Args: ${v.args}; Returns: ${v.returns} }`);
    }
  }
}

const HELPERS = `
type DatabaseWithoutInternals = Omit<Database, "__InternalSupabase">

type DefaultSchema = DatabaseWithoutInternals[Extract<keyof Database, "public">]

export type Tables<
  DefaultSchemaTableNameOrOptions extends
    | keyof (DefaultSchema["Tables"] & DefaultSchema["Views"])
    | { schema: keyof DatabaseWithoutInternals },
  TableName extends DefaultSchemaTableNameOrOptions extends { schema: keyof DatabaseWithoutInternals }
    ? keyof (DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Tables"] &
        DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Views"])
    : never = never,
> = DefaultSchemaTableNameOrOptions extends { schema: keyof DatabaseWithoutInternals }
  ? (DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Tables"] &
      DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Views"])[TableName] extends { Row: infer R }
    ? R
    : never
  : DefaultSchemaTableNameOrOptions extends keyof (DefaultSchema["Tables"] & DefaultSchema["Views"])
    ? (DefaultSchema["Tables"] & DefaultSchema["Views"])[DefaultSchemaTableNameOrOptions] extends { Row: infer R }
      ? R
      : never
    : never

export type TablesInsert<
  DefaultSchemaTableNameOrOptions extends
    | keyof DefaultSchema["Tables"]
    | { schema: keyof DatabaseWithoutInternals },
  TableName extends DefaultSchemaTableNameOrOptions extends { schema: keyof DatabaseWithoutInternals }
    ? keyof DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Tables"]
    : never = never,
> = DefaultSchemaTableNameOrOptions extends { schema: keyof DatabaseWithoutInternals }
  ? DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Tables"][TableName] extends { Insert: infer I }
    ? I
    : never
  : DefaultSchemaTableNameOrOptions extends keyof DefaultSchema["Tables"]
    ? DefaultSchema["Tables"][DefaultSchemaTableNameOrOptions] extends { Insert: infer I }
      ? I
      : never
    : never

export type TablesUpdate<
  DefaultSchemaTableNameOrOptions extends
    | keyof DefaultSchema["Tables"]
    | { schema: keyof DatabaseWithoutInternals },
  TableName extends DefaultSchemaTableNameOrOptions extends { schema: keyof DatabaseWithoutInternals }
    ? keyof DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Tables"]
    : never = never,
> = DefaultSchemaTableNameOrOptions extends { schema: keyof DatabaseWithoutInternals }
  ? DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Tables"][TableName] extends { Update: infer U }
    ? U
    : never
  : DefaultSchemaTableNameOrOptions extends keyof DefaultSchema["Tables"]
    ? DefaultSchema["Tables"][DefaultSchemaTableNameOrOptions] extends { Update: infer U }
      ? U
      : never
    : never

export type Enums<
  DefaultSchemaEnumNameOrOptions extends
    | keyof DefaultSchema["Enums"]
    | { schema: keyof DatabaseWithoutInternals },
  EnumName extends DefaultSchemaEnumNameOrOptions extends { schema: keyof DatabaseWithoutInternals }
    ? keyof DatabaseWithoutInternals[DefaultSchemaEnumNameOrOptions["schema"]]["Enums"]
    : never = never,
> = DefaultSchemaEnumNameOrOptions extends { schema: keyof DatabaseWithoutInternals }
  ? DatabaseWithoutInternals[DefaultSchemaEnumNameOrOptions["schema"]]["Enums"][EnumName]
  : DefaultSchemaEnumNameOrOptions extends keyof DefaultSchema["Enums"]
    ? DefaultSchema["Enums"][DefaultSchemaEnumNameOrOptions]
    : never

export type CompositeTypes<
  PublicCompositeTypeNameOrOptions extends
    | keyof DefaultSchema["CompositeTypes"]
    | { schema: keyof DatabaseWithoutInternals },
  CompositeTypeName extends PublicCompositeTypeNameOrOptions extends { schema: keyof DatabaseWithoutInternals }
    ? keyof DatabaseWithoutInternals[PublicCompositeTypeNameOrOptions["schema"]]["CompositeTypes"]
    : never = never,
> = PublicCompositeTypeNameOrOptions extends { schema: keyof DatabaseWithoutInternals }
  ? DatabaseWithoutInternals[PublicCompositeTypeNameOrOptions["schema"]]["CompositeTypes"][CompositeTypeName]
  : PublicCompositeTypeNameOrOptions extends keyof DefaultSchema["CompositeTypes"]
    ? DefaultSchema["CompositeTypes"][PublicCompositeTypeNameOrOptions]
    : never
`;

/** The generated TypeScript source for `schemas` (the first should be `public`). */
export function generateTypes(cache: SchemaCache, schemas: string[]): string {
  const p = new Printer();
  p.line('export type Json =');
  p.line('  | string');
  p.line('  | number');
  p.line('  | boolean');
  p.line('  | null');
  p.line('  | { [key: string]: Json | undefined }');
  p.line('  | Json[]');
  p.line();
  p.open('export type Database = {');
  p.line('// Lets createClient<Database>() pick the REST protocol version');
  p.open('__InternalSupabase: {');
  p.line('PostgrestVersion: "13"');
  p.close();
  for (const schema of schemas) {
    const tables = [...cache.tables.values()].filter((t) => t.schema === schema);
    const real = tables.filter((t) => t.kind === 'r' || t.kind === 'p' || t.kind === 'f');
    const views = tables.filter((t) => t.kind === 'v' || t.kind === 'm');
    p.open(`${key(schema)}: {`);
    p.open('Tables: {');
    if (real.length === 0) p.line('[_ in never]: never');
    for (const t of real) tableBlock(p, cache, t, false);
    p.close();
    p.open('Views: {');
    if (views.length === 0) p.line('[_ in never]: never');
    for (const t of views) tableBlock(p, cache, t, true);
    p.close();
    p.open('Functions: {');
    functionsBlock(p, cache, schema);
    p.close();
    p.open('Enums: {');
    const enums = cache.enums.filter((e) => e.schema === schema);
    if (enums.length === 0) p.line('[_ in never]: never');
    for (const e of enums)
      p.line(`${key(e.name)}: ${e.values.map((v) => JSON.stringify(v)).join(' | ')}`);
    p.close();
    p.open('CompositeTypes: {');
    const comps = cache.composites.filter((c) => c.schema === schema);
    if (comps.length === 0) p.line('[_ in never]: never');
    for (const c of comps) {
      p.open(`${key(c.name)}: {`);
      for (const a of c.attributes)
        p.line(`${key(a.name)}: ${tsType(cache, schema, a.type)} | null`);
      p.close();
    }
    p.close();
    p.close();
  }
  p.close();
  let out = p.toString() + HELPERS;
  out += '\nexport const Constants = {\n';
  for (const schema of schemas) {
    const enums = cache.enums.filter((e) => e.schema === schema);
    out += `  ${key(schema)}: {\n    Enums: {${enums.length ? '\n' : ''}`;
    for (const e of enums) out += `      ${key(e.name)}: ${JSON.stringify(e.values)},\n`;
    out += `${enums.length ? '    ' : ''}},\n  },\n`;
  }
  out += '} as const\n';
  return out;
}
