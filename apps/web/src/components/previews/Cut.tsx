/** The line under a preview that shows only the start of a file. */
import { formatNumber } from '../../format';
import { t } from '../../i18n';

/** Bytes of a text file (Markdown, code, plain text) a preview reads. */
export const TEXT_LIMIT = 256 * 1024;

export function Cut() {
  return <p className="hint">{t('preview.cut', { n: formatNumber(TEXT_LIMIT / 1024) })}</p>;
}
