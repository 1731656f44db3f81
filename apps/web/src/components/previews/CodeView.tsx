/**
 * Source code with its syntax highlighted (highlight.js's core and a set of common
 * languages, in this lazy chunk only). highlight.js escapes the text it wraps in its spans.
 */
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import c from 'highlight.js/lib/languages/c';
import cpp from 'highlight.js/lib/languages/cpp';
import csharp from 'highlight.js/lib/languages/csharp';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import go from 'highlight.js/lib/languages/go';
import ini from 'highlight.js/lib/languages/ini';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import kotlin from 'highlight.js/lib/languages/kotlin';
import php from 'highlight.js/lib/languages/php';
import python from 'highlight.js/lib/languages/python';
import ruby from 'highlight.js/lib/languages/ruby';
import rust from 'highlight.js/lib/languages/rust';
import scss from 'highlight.js/lib/languages/scss';
import sql from 'highlight.js/lib/languages/sql';
import swift from 'highlight.js/lib/languages/swift';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';
import { useMemo } from 'react';
import { t } from '../../i18n';
import { ErrorText } from '../ErrorText';
import { Cut, TEXT_LIMIT } from './Cut';
import { useTextStart } from './use-text';

const LANGUAGES = {
  bash,
  c,
  cpp,
  csharp,
  css,
  diff,
  go,
  ini,
  java,
  javascript,
  json,
  kotlin,
  php,
  python,
  ruby,
  rust,
  scss,
  sql,
  swift,
  typescript,
  xml,
  yaml,
};
for (const [name, language] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, language);

export default function CodeView({
  url,
  name,
  language,
}: {
  url: string;
  name: string;
  language: string;
}) {
  const text = useTextStart(url, TEXT_LIMIT);
  const source = text.data?.text;
  const html = useMemo(
    () =>
      source === undefined
        ? null
        : hljs.getLanguage(language)
          ? hljs.highlight(source, { language, ignoreIllegals: true }).value
          : null,
    [source, language],
  );
  if (text.error) return <ErrorText error={text.error} />;
  return (
    <section className="doc-preview" aria-label={t('preview.code', { name })}>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region is reached by keyboard. */}
      <pre className="text-preview code-preview" tabIndex={0}>
        {html !== null ? (
          <code
            className={`hljs language-${language}`}
            // biome-ignore lint/security/noDangerouslySetInnerHtml: highlight.js escapes the source it wraps.
            dangerouslySetInnerHTML={{ __html: html }}
          />
        ) : (
          <code>{source ?? t('row.loading')}</code>
        )}
      </pre>
      {text.data && !text.data.whole ? <Cut /> : null}
    </section>
  );
}
