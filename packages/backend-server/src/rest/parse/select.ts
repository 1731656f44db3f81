import type { AggregateName, SelectItem } from './ast';
import { Cursor } from './cursor';

const AGGREGATES: ReadonlySet<string> = new Set(['count', 'sum', 'avg', 'min', 'max']);

/** Parses the `select` parameter into a forest of items. */
export function parseSelect(text: string): SelectItem[] {
  const c = new Cursor(text, 'select parameter');
  const items = itemList(c);
  c.skipSpaces();
  if (!c.done) c.fail('expecting "," or end of input');
  return items;
}

function itemList(c: Cursor): SelectItem[] {
  const items: SelectItem[] = [];
  c.skipSpaces();
  if (c.done || c.peek() === ')') return items;
  for (;;) {
    c.skipSpaces();
    items.push(item(c));
    c.skipSpaces();
    if (!c.eat(',')) return items;
  }
}

function cast(c: Cursor): string | null {
  return c.eat('::') ? c.castType() : null;
}

function item(c: Cursor): SelectItem {
  if (c.eat('*')) return { kind: 'star' };
  const spread = c.eat('...');
  let alias: string | null = null;
  let name = c.ident();
  if (!spread && c.peek() === ':' && c.peek(1) !== ':') {
    c.pos++;
    alias = name;
    name = c.ident();
  }
  // count() without a column
  if (!spread && name === 'count' && c.startsWith('()')) {
    c.pos += 2;
    return { kind: 'count', alias, cast: cast(c) };
  }
  if (spread || c.peek() === '!' || c.peek() === '(') {
    let hint: string | null = null;
    let join: 'inner' | 'left' | null = null;
    while (c.eat('!')) {
      const word = c.ident();
      if (word === 'inner' || word === 'left') join = word;
      else hint = word;
    }
    c.expect('(');
    const items = itemList(c);
    c.skipSpaces();
    c.expect(')');
    return { kind: 'embed', name, alias, hint, join, spread, items };
  }
  const path = c.jsonPath();
  let fieldCast = cast(c);
  let aggregate: AggregateName | null = null;
  let aggregateCast: string | null = null;
  if (c.peek() === '.') {
    c.pos++;
    const fn = c.ident();
    if (!AGGREGATES.has(fn)) c.fail('expecting aggregate function');
    c.expect('()');
    aggregate = fn as AggregateName;
    aggregateCast = cast(c);
  } else if (fieldCast === null) {
    fieldCast = cast(c);
  }
  return {
    kind: 'column',
    field: { name, path },
    alias,
    cast: fieldCast,
    aggregate,
    aggregateCast,
  };
}
