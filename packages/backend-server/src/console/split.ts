/** One statement of a script and where it starts in it (0-based character offset). */
export interface ScriptStatement {
  text: string;
  offset: number;
}

/**
 * Splits a SQL script at its top-level semicolons, the way psql does: quotes
 * (`'…'`, `E'…'`, `"…"`), dollar quotes (`$tag$…$tag$`), line and (nested) block comments
 * are skipped over. Statements that hold only blanks and comments are dropped.
 *
 * @example
 * splitStatements("select 1; select ';'") // [{ text: 'select 1', offset: 0 }, { text: "select ';'", offset: 10 }]
 */
export function splitStatements(script: string): ScriptStatement[] {
  const out: ScriptStatement[] = [];
  let start = 0;
  let meaningful = false;
  let i = 0;
  const n = script.length;
  const push = (end: number) => {
    if (meaningful) {
      const raw = script.slice(start, end);
      const lead = raw.length - raw.trimStart().length;
      out.push({ text: raw.trim(), offset: start + lead });
    }
    meaningful = false;
  };
  while (i < n) {
    const ch = script[i] as string;
    const next = script[i + 1];
    if (ch === '-' && next === '-') {
      const end = script.indexOf('\n', i);
      i = end < 0 ? n : end + 1;
      if (!meaningful) start = i;
      continue;
    }
    if (ch === '/' && next === '*') {
      let depth = 1;
      i += 2;
      while (i < n && depth > 0) {
        if (script[i] === '/' && script[i + 1] === '*') {
          depth += 1;
          i += 2;
        } else if (script[i] === '*' && script[i + 1] === '/') {
          depth -= 1;
          i += 2;
        } else i += 1;
      }
      if (!meaningful) start = i;
      continue;
    }
    if (ch === ';') {
      push(i);
      i += 1;
      start = i;
      continue;
    }
    if (!/\s/.test(ch)) meaningful = true;
    if (ch === "'") {
      const escapes = /[eE]/.test(script[i - 1] ?? '') && !/\w/.test(script[i - 2] ?? '');
      i += 1;
      while (i < n) {
        if (escapes && script[i] === '\\') i += 2;
        else if (script[i] === "'" && script[i + 1] === "'") i += 2;
        else if (script[i] === "'") break;
        else i += 1;
      }
      i += 1;
      continue;
    }
    if (ch === '"') {
      i += 1;
      while (i < n) {
        if (script[i] === '"' && script[i + 1] === '"') i += 2;
        else if (script[i] === '"') break;
        else i += 1;
      }
      i += 1;
      continue;
    }
    if (ch === '$' && !/\w/.test(script[i - 1] ?? '')) {
      const tag = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(script.slice(i, i + 64));
      if (tag) {
        const close = script.indexOf(tag[0], i + tag[0].length);
        i = close < 0 ? n : close + tag[0].length;
        continue;
      }
    }
    i += 1;
  }
  push(n);
  return out;
}
