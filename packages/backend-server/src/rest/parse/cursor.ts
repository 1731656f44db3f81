import { parseError } from '../errors';
import type { Field, JsonStep } from './ast';

const IDENT = /[^\s,.:()!"<>{}[\]\-*]/u;

/** A character cursor over one parameter value, with PostgREST-style parse errors. */
export class Cursor {
  pos = 0;
  constructor(
    readonly text: string,
    private readonly what: string,
  ) {}

  get done(): boolean {
    return this.pos >= this.text.length;
  }
  peek(n = 0): string {
    return this.text[this.pos + n] ?? '';
  }
  startsWith(s: string): boolean {
    return this.text.startsWith(s, this.pos);
  }
  eat(s: string): boolean {
    if (!this.startsWith(s)) return false;
    this.pos += s.length;
    return true;
  }
  expect(s: string): void {
    if (!this.eat(s)) this.fail(`expecting "${s}"`);
  }
  fail(expecting: string): never {
    const found = this.done ? 'end of input' : `"${this.peek()}"`;
    throw parseError(
      `"failed to parse ${this.what} (${this.text})" (line 1, column ${this.pos + 1})`,
      `unexpected ${found} ${expecting}`,
    );
  }
  skipSpaces(): void {
    while (/\s/.test(this.peek())) this.pos++;
  }

  /** A double-quoted string with `\"` and `\\` escapes (cursor on the opening quote). */
  quoted(): string {
    this.expect('"');
    let out = '';
    while (!this.done && this.peek() !== '"') {
      if (this.peek() === '\\' && this.pos + 1 < this.text.length) this.pos++;
      out += this.peek();
      this.pos++;
    }
    this.expect('"');
    return out;
  }

  /** An identifier: quoted, or a run of name characters. */
  ident(): string {
    if (this.peek() === '"') return this.quoted();
    const start = this.pos;
    while (!this.done && IDENT.test(this.peek())) this.pos++;
    if (this.pos === start) this.fail('expecting field name');
    return this.text.slice(start, this.pos);
  }

  /** `->key` / `->>key` steps after a column name. */
  jsonPath(): JsonStep[] {
    const path: JsonStep[] = [];
    for (;;) {
      let arrow: JsonStep['arrow'];
      if (this.eat('->>')) arrow = '->>';
      else if (this.eat('->')) arrow = '->';
      else return path;
      let key: string;
      if (/[-0-9]/.test(this.peek())) {
        const m = /^-?\d+/.exec(this.text.slice(this.pos));
        if (!m) this.fail('expecting json key');
        key = m[0];
        this.pos += key.length;
      } else {
        key = this.ident();
      }
      path.push({ arrow, key });
    }
  }

  field(): Field {
    const name = this.ident();
    return { name, path: this.jsonPath() };
  }

  /** A type name for a cast: letters, digits, `_`, spaces and a trailing `[]`. */
  castType(): string {
    const m = /^[A-Za-z_][A-Za-z0-9_ ]*(\[\])?/.exec(this.text.slice(this.pos));
    if (!m) this.fail('expecting type name');
    this.pos += m[0].length;
    return m[0].trim();
  }
}

/** The key a field shows up under in the output: alias, else the last JSON key, else the name. */
export function outputName(field: Field, alias: string | null): string {
  if (alias) return alias;
  const last = field.path[field.path.length - 1];
  return last ? last.key : field.name;
}
