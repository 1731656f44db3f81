/**
 * `[db.seed] sql_paths` of a project's `config.toml`: files and glob patterns relative to
 * the project folder, expanded as the hosted CLI does — each pattern's matches sorted, the
 * patterns in their order, a file matched twice applied once; a pattern that matches nothing
 * is a warning, not an error.
 */
import { readdirSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve, sep } from 'node:path';

/** Whether one path segment has glob characters (`*`, `?`, `[…]`). */
const isPattern = (segment: string) => /[*?[]/.test(segment);

/** A glob segment as a regular expression: `*` and `?` within the segment, `[…]` classes. */
function segmentRegExp(segment: string): RegExp {
  let out = '';
  for (let i = 0; i < segment.length; i++) {
    const c = segment[i] as string;
    if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else if (c === '[') {
      const end = segment.indexOf(']', i + 2);
      if (end < 0) throw new Error(`unclosed [ in ${JSON.stringify(segment)}`);
      let body = segment.slice(i + 1, end);
      if (body.startsWith('^') || body.startsWith('!')) body = `^${body.slice(1)}`;
      out += `[${body.replace(/[\\\]]/g, '\\$&')}]`;
      i = end;
    } else out += c.replace(/[.+^${}()|\\]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}

/** Files matching one pattern (absolute, or relative to `root`), sorted. */
export function globFiles(pattern: string, root: string): string[] {
  const full = isAbsolute(pattern) ? pattern : resolve(root, pattern);
  const parts = full.split(sep);
  const fixed = parts.findIndex(isPattern);
  if (fixed < 0) {
    try {
      return statSync(full).isFile() ? [full] : [];
    } catch {
      return [];
    }
  }
  let found = [parts.slice(0, fixed).join(sep) || sep];
  for (const [i, segment] of parts.slice(fixed).entries()) {
    const last = i === parts.length - fixed - 1;
    const next: string[] = [];
    for (const dir of found) {
      if (!isPattern(segment)) {
        next.push(join(dir, segment));
        continue;
      }
      const match = segmentRegExp(segment);
      let names: string[];
      try {
        names = readdirSync(dir);
      } catch {
        continue;
      }
      for (const name of names) if (match.test(name)) next.push(join(dir, name));
    }
    found = last
      ? next.filter((path) => {
          try {
            return statSync(path).isFile();
          } catch {
            return false;
          }
        })
      : next;
  }
  return found.sort();
}

/**
 * The seed files of `sql_paths` under `root`, in order, each once. `warn` hears about a
 * pattern that matched nothing.
 */
export function seedFiles(
  paths: readonly string[],
  root: string,
  warn: (message: string) => void,
): string[] {
  const result: string[] = [];
  for (const pattern of paths) {
    if (pattern === '') continue;
    const matches = globFiles(pattern, root);
    if (matches.length === 0) warn(`no files matched pattern: ${pattern}`);
    for (const file of matches) if (!result.includes(file)) result.push(file);
  }
  return result;
}
