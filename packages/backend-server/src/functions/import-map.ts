import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** One import map: its `imports` and the folder its relative targets start from. */
export interface ImportMap {
  imports: Record<string, string>;
  base: string;
}

const MAP_FILES = ['import_map.json', 'deno.json', 'deno.jsonc'];

/**
 * The files an import map may come from, weakest first: in `functionsDir` (shared by every
 * function), then in the function's own folder — the places the hosted CLI reads
 * (`import_map.json`, or `imports` of `deno.json(c)`).
 */
export function importMapFiles(functionsDir: string, functionDir: string): string[] {
  return [functionsDir, functionDir].flatMap((dir) => MAP_FILES.map((file) => join(dir, file)));
}

/** JSON with comments and trailing commas (deno.jsonc) → JSON. */
export function stripJsonc(text: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      out += c;
      if (c === '\\') out += text[++i] ?? '';
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
      out += c;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else if (c === '/' && text[i + 1] === '*') {
      i = text.indexOf('*/', i + 2);
      if (i < 0) break;
      i++;
    } else out += c;
  }
  return out.replace(/,(\s*[}\]])/g, '$1');
}

/**
 * Reads the import maps among `files` that exist. A file that is not valid JSON, or whose
 * `imports` is not an object of strings, is an error (the function cannot boot).
 */
export function loadImportMaps(files: string[]): ImportMap[] {
  const maps: ImportMap[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(stripJsonc(text));
    } catch (error) {
      throw new Error(`${file}: not valid JSON (${(error as Error).message})`);
    }
    const imports = (parsed as { imports?: unknown } | null)?.imports;
    if (imports === undefined) continue;
    if (
      !imports ||
      typeof imports !== 'object' ||
      Object.values(imports).some((v) => typeof v !== 'string')
    ) {
      throw new Error(`${file}: "imports" must map specifiers to strings`);
    }
    maps.push({ imports: imports as Record<string, string>, base: dirname(file) });
  }
  return maps;
}

/**
 * What `specifier` becomes under the maps (the last map that knows it wins; an exact key
 * before the longest `prefix/` key), or null. Relative targets come back as absolute paths.
 */
export function mapSpecifier(specifier: string, maps: ImportMap[]): string | null {
  for (let i = maps.length - 1; i >= 0; i--) {
    const map = maps[i] as ImportMap;
    let target = map.imports[specifier];
    if (target === undefined) {
      const prefix = Object.keys(map.imports)
        .filter((key) => key.endsWith('/') && specifier.startsWith(key))
        .sort((a, b) => b.length - a.length)[0];
      if (prefix === undefined) continue;
      target = (map.imports[prefix] as string) + specifier.slice(prefix.length);
    }
    return /^\.{1,2}\//.test(target) ? resolve(map.base, target) : target;
  }
  return null;
}
