import { parseError } from '../errors';
import {
  type Field,
  type Filter,
  FTS_OPS,
  type FtsOp,
  type LogicTree,
  type Operation,
  QUANTIFIABLE,
  SIMPLE_OPS,
  type SimpleOp,
} from './ast';
import { Cursor } from './cursor';

const OPS_LIST = 'operator (eq, gt, ...)';
const IS_VALUES = new Set(['null', 'not_null', 'true', 'false', 'unknown']);

/** Splits `a,b,"c,d"` at top-level commas, unquoting quoted elements. */
export function splitList(text: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  let wasQuoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (quoted) {
      if (ch === '\\' && i + 1 < text.length) cur += text[++i];
      else if (ch === '"') quoted = false;
      else cur += ch;
    } else if (ch === '"') {
      quoted = true;
      wasQuoted = true;
    } else if (ch === ',') {
      out.push(wasQuoted ? cur : cur.trim());
      cur = '';
      wasQuoted = false;
    } else cur += ch;
  }
  out.push(wasQuoted ? cur : cur.trim());
  return out;
}

/** Removes one level of double quotes (with escapes) when the whole value is quoted. */
function unquote(value: string): string {
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) {
    return new Cursor(value, 'value').quoted();
  }
  return value;
}

/**
 * Parses `[not.]op[(mod)].value` (a filter parameter's value). `inTree` unquotes values
 * the way logic trees do.
 */
export function parseOperation(
  text: string,
  what: string,
  inTree: boolean,
): { negate: boolean; operation: Operation } {
  const fail = (details: string): never => {
    throw parseError(`"failed to parse ${what} (${text})" (line 1, column 1)`, details);
  };
  let rest = text;
  let negate = false;
  if (rest.startsWith('not.')) {
    negate = true;
    rest = rest.slice(4);
  }
  const m = /^([a-z]+)(?:\(([^)]*)\))?\./.exec(rest);
  if (!m) return fail(`unexpected "${rest.slice(0, 1)}" expecting "not" or ${OPS_LIST}`);
  const op = m[1] as string;
  const mod = m[2] ?? null;
  const raw = rest.slice(m[0].length);
  const value = inTree ? unquote(raw) : raw;
  if (op === 'in') {
    if (mod !== null || !raw.startsWith('(') || !raw.endsWith(')'))
      return fail('unexpected end of input expecting "("');
    return { negate, operation: { kind: 'in', values: splitList(raw.slice(1, -1)) } };
  }
  if (op === 'is') {
    const v = value.toLowerCase();
    if (mod !== null || !IS_VALUES.has(v))
      return fail(`unexpected "${value}" expecting null, not_null, true, false or unknown`);
    return { negate, operation: { kind: 'is', value: v as 'null' } };
  }
  if ((FTS_OPS as readonly string[]).includes(op)) {
    if (mod !== null && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(mod))
      return fail(`unexpected "${mod}" expecting text search configuration`);
    return { negate, operation: { kind: 'fts', op: op as FtsOp, config: mod, value } };
  }
  if ((SIMPLE_OPS as readonly string[]).includes(op)) {
    let quantifier: 'any' | 'all' | null = null;
    if (mod !== null) {
      if ((mod !== 'any' && mod !== 'all') || !QUANTIFIABLE.has(op))
        return fail(`unexpected "(" expecting "."`);
      if (!raw.startsWith('{') || !raw.endsWith('}'))
        return fail('unexpected end of input expecting "{"');
      quantifier = mod;
    }
    return { negate, operation: { kind: 'simple', op: op as SimpleOp, quantifier, value } };
  }
  return fail(`unexpected "${op.slice(0, 1)}" expecting "not" or ${OPS_LIST}`);
}

/** Parses a filter parameter: `field` from the key, the operation from the value. */
export function parseFilter(field: Field, value: string): Filter {
  const { negate, operation } = parseOperation(value, 'filter', false);
  return { kind: 'filter', field, negate, operation };
}

/** Splits at top-level commas, honouring quotes, parentheses and braces. */
function splitTerms(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '\\') i++;
      else if (ch === '"') quoted = false;
    } else if (ch === '"') quoted = true;
    else if (ch === '(' || ch === '{') depth++;
    else if (ch === ')' || ch === '}') depth--;
    else if (ch === ',' && depth === 0) {
      out.push(text.slice(start, i));
      start = i + 1;
    }
  }
  out.push(text.slice(start));
  return out;
}

/** Parses an `or=(…)` / `and=(…)` value into a tree. */
export function parseLogic(op: 'and' | 'or', negate: boolean, text: string): LogicTree {
  const what = 'logic tree';
  if (!text.startsWith('(') || !text.endsWith(')')) {
    throw parseError(
      `"failed to parse ${what} (${text})" (line 1, column 1)`,
      'unexpected end of input expecting "("',
    );
  }
  const children: (LogicTree | Filter)[] = [];
  for (const term of splitTerms(text.slice(1, -1))) {
    const t = term.trim();
    const m = /^(not\.)?(and|or)\(/.exec(t);
    if (m) {
      children.push(parseLogic(m[2] as 'and' | 'or', !!m[1], t.slice(m[0].length - 1)));
      continue;
    }
    const c = new Cursor(t, what);
    const field = c.field();
    c.expect('.');
    const { negate: neg, operation } = parseOperation(t.slice(c.pos), what, true);
    children.push({ kind: 'filter', field, negate: neg, operation });
  }
  return { kind: 'logic', op, negate, children };
}
