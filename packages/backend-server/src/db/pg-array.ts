/**
 * PostgreSQL's text form of an array (`{a,"b c",NULL,{1,2}}`, with an optional dimensions
 * prefix `[0:1]=`) read into nested JS arrays: quoted elements unescaped, an unquoted `NULL`
 * as null, every other element through `element`.
 *
 * @example
 * parseArray('{a,"b,c",NULL}'); // ['a', 'b,c', null]
 * parseArray('{{1,2},{3,NULL}}', Number); // [[1, 2], [3, null]]
 */
export function parseArray(
  text: string,
  element: (value: string) => unknown = (value) => value,
  delimiter = ',',
): unknown[] {
  let at = text.startsWith('[') ? text.indexOf('=') + 1 : 0;

  function list(): unknown[] {
    if (text[at] !== '{') throw new SyntaxError(`not an array literal: ${text}`);
    at++;
    const items: unknown[] = [];
    if (text[at] === '}') {
      at++;
      return items;
    }
    for (;;) {
      items.push(item());
      const next = text[at++];
      if (next === '}') return items;
      if (next !== delimiter) throw new SyntaxError(`not an array literal: ${text}`);
    }
  }

  function item(): unknown {
    if (text[at] === '{') return list();
    if (text[at] === '"') {
      let value = '';
      at++;
      while (at < text.length && text[at] !== '"') {
        if (text[at] === '\\') at++;
        value += text[at++];
      }
      at++;
      return element(value);
    }
    const start = at;
    while (at < text.length && text[at] !== delimiter && text[at] !== '}') at++;
    const raw = text.slice(start, at);
    return raw.toUpperCase() === 'NULL' ? null : element(raw);
  }

  return list();
}
