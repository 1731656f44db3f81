/**
 * An SVG picture, sanitised (../../lib/sanitize) and shown as an `<img>` of a blob URL: its
 * scripts never run and it loads nothing from elsewhere.
 */
import { useEffect, useState } from 'react';
import { t } from '../../i18n';
import { sanitizeSvg } from '../../lib/sanitize';
import { ErrorText } from '../ErrorText';
import { useTextStart } from './use-text';

const SVG_LIMIT = 4 * 1024 * 1024;

export default function SvgView({ url, name }: { url: string; name: string }) {
  const text = useTextStart(url, SVG_LIMIT);
  const [src, setSrc] = useState<string | null>(null);
  const [failed, setFailed] = useState(false);
  const source = text.data?.whole ? text.data.text : null;
  useEffect(() => {
    if (source === null) return;
    let made: string | null = null;
    try {
      made = URL.createObjectURL(sanitizeSvg(source));
      setSrc(made);
    } catch {
      setFailed(true);
    }
    return () => {
      if (made) URL.revokeObjectURL(made);
    };
  }, [source]);
  if (text.error) return <ErrorText error={text.error} />;
  if (text.data && !text.data.whole) return <p className="hint">{t('preview.svgTooLarge')}</p>;
  if (failed) return <p className="hint">{t('preview.svgUnreadable')}</p>;
  return src ? (
    <img src={src} alt={name} className="svg-preview" />
  ) : (
    <p className="hint">{t('row.loading')}</p>
  );
}
