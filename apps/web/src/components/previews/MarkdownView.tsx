/** A Markdown file rendered (marked, GitHub's flavour), its HTML sanitised (../../lib/sanitize). */
import { marked } from 'marked';
import { useEffect, useRef } from 'react';
import { t } from '../../i18n';
import { sanitizeMarkdownHtml } from '../../lib/sanitize';
import { ErrorText } from '../ErrorText';
import { Cut, TEXT_LIMIT } from './Cut';
import { useTextStart } from './use-text';

export default function MarkdownView({ url, name }: { url: string; name: string }) {
  const text = useTextStart(url, TEXT_LIMIT);
  const box = useRef<HTMLDivElement>(null);
  const source = text.data?.text;
  useEffect(() => {
    if (source === undefined || !box.current) return;
    const html = marked.parse(source, { async: false, gfm: true });
    box.current.replaceChildren(sanitizeMarkdownHtml(html));
  }, [source]);
  if (text.error) return <ErrorText error={text.error} />;
  return (
    <div className="doc-preview">
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region is reached by keyboard. */}
      <section className="markdown-body" tabIndex={0} aria-label={t('files.contents', { name })}>
        {source === undefined ? <p className="hint">{t('row.loading')}</p> : null}
        {/* Filled with the sanitised nodes; React keeps no children of its own here. */}
        <div ref={box} />
      </section>
      {text.data && !text.data.whole ? <Cut /> : null}
    </div>
  );
}
