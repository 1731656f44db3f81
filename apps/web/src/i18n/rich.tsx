import { Fragment, type ReactNode } from 'react';

/**
 * A message with marked parts (`<0>…</0>`, `<1>…</1>`) drawn as elements: the translator keeps
 * the whole sentence, and the element wraps whatever words the language puts inside.
 *
 * @example
 * rich(t('invite.with', { email }), [(s) => <strong>{s}</strong>])
 */
export function rich(text: string, parts: ((chunk: string) => ReactNode)[]): ReactNode {
  const out: ReactNode[] = [];
  const tag = /<(\d)>(.*?)<\/\1>/gs;
  let at = 0;
  for (let m = tag.exec(text); m; m = tag.exec(text)) {
    out.push(text.slice(at, m.index));
    const draw = parts[Number(m[1])];
    out.push(<Fragment key={m.index}>{draw ? draw(m[2] ?? '') : m[2]}</Fragment>);
    at = m.index + m[0].length;
  }
  out.push(text.slice(at));
  return out;
}
