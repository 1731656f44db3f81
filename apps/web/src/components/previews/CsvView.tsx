/**
 * A CSV (or TSV) file as a table: its first row as column headers, at most `ROWS_SHOWN` rows
 * below them, and how many were left out. Parsed by papaparse (delimiter guessed), from the
 * first `CSV_LIMIT` bytes.
 */
import Papa from 'papaparse';
import { useMemo } from 'react';
import { formatNumber } from '../../format';
import { t } from '../../i18n';
import { ErrorText } from '../ErrorText';
import { useTextStart } from './use-text';

const CSV_LIMIT = 2 * 1024 * 1024;
const ROWS_SHOWN = 200;

export default function CsvView({ url, name }: { url: string; name: string }) {
  const text = useTextStart(url, CSV_LIMIT);
  const rows = useMemo(() => {
    const data = text.data;
    if (!data) return null;
    const parsed = Papa.parse<string[]>(data.text, { skipEmptyLines: true });
    // A cut file ends mid-row: its last row is dropped.
    return data.whole ? parsed.data : parsed.data.slice(0, -1);
  }, [text.data]);
  if (text.error) return <ErrorText error={text.error} />;
  if (!rows) return <p className="hint">{t('row.loading')}</p>;
  const [head = [], ...body] = rows;
  const shown = body.slice(0, ROWS_SHOWN);
  const left = body.length - shown.length;
  const whole = text.data?.whole ?? true;
  return (
    <div className="doc-preview">
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region is reached by keyboard. */}
      <section className="table-preview" tabIndex={0} aria-label={t('preview.table', { name })}>
        <table>
          <caption className="sr-only">{name}</caption>
          <thead>
            <tr>
              {head.map((cell, i) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: columns have no other identity.
                <th key={i} scope="col">
                  {cell}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {shown.map((row, r) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: rows have no other identity.
              <tr key={r}>
                {row.map((cell, i) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: cells have no other identity.
                  <td key={i}>{cell}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <p className="hint table-count">
        {t(
          left > 0
            ? whole
              ? 'preview.rowsLeft'
              : 'preview.rowsLeftMore'
            : whole
              ? 'preview.rows'
              : 'preview.rowsMore',
          {
            count: body.length,
            n: formatNumber(body.length),
            shown: formatNumber(shown.length),
            left: formatNumber(left),
          },
        )}
      </p>
    </div>
  );
}
