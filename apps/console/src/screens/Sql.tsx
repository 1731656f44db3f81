import { useQueryClient } from '@app/backend-react';
import type {
  ApiError,
  SqlError,
  SqlFailure,
  SqlResponse,
  SqlResult,
} from '@app/backend-server/console-api';
import { type KeyboardEvent, useState } from 'react';
import { ErrorText } from '../components/ErrorText';
import { useConsole } from '../lib/context';
import { cellText } from '../lib/values';

const HISTORY_KEY = 'backend-console-sql-history';
const HISTORY_SIZE = 50;

const loadHistory = (): string[] => {
  try {
    return JSON.parse(localStorage.getItem(HISTORY_KEY) ?? '[]') as string[];
  } catch {
    return [];
  }
};

/** Runs SQL as the database superuser: results per statement, errors placed in the script. */
export default function Sql() {
  const { api } = useConsole();
  const queryClient = useQueryClient();
  const [script, setScript] = useState(() => loadHistory()[0] ?? 'select now();');
  const [results, setResults] = useState<SqlResult[] | null>(null);
  const [error, setError] = useState<SqlError | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [running, setRunning] = useState(false);
  const [took, setTook] = useState<number | null>(null);
  const [history, setHistory] = useState(loadHistory);

  const run = async () => {
    setRunning(true);
    setFailure(null);
    // 200 with results, 400 with the failed statement's error, or an error message.
    const res = await api.exchange<Partial<SqlResponse & SqlFailure & ApiError>>('POST', '/sql', {
      query: script,
    });
    setRunning(false);
    if (res.error) {
      setFailure(res.error.message);
      return;
    }
    const body = res.body ?? {};
    setTook(body.durationMs ?? null);
    setResults(body.results ?? null);
    setError(body.error ?? null);
    if (!body.results && !body.error) setFailure(body.message ?? `HTTP ${res.status}`);
    const next = [script, ...history.filter((h) => h !== script)].slice(0, HISTORY_SIZE);
    setHistory(next);
    localStorage.setItem(HISTORY_KEY, JSON.stringify(next));
    // The schema may have changed: lists and tables reload when next shown.
    if (body.results) void queryClient.invalidateQueries();
  };
  const onKey = (event: KeyboardEvent) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      void run();
    }
  };
  const lineText = error?.line ? script.split('\n')[error.line - 1] : null;

  return (
    <section aria-labelledby="sql-heading">
      <h1 id="sql-heading">SQL</h1>
      <p className="muted">
        Runs as the database superuser, in one transaction (Ctrl+Enter runs it). Row level security
        does not apply.
      </p>
      <label htmlFor="sql-editor">Script</label>
      <textarea
        id="sql-editor"
        className="code"
        rows={10}
        spellCheck={false}
        value={script}
        onChange={(e) => setScript(e.target.value)}
        onKeyDown={onKey}
      />
      <div className="toolbar">
        <button type="button" className="primary" onClick={run} disabled={running}>
          {running ? 'Running…' : 'Run'}
        </button>
        {took !== null && <span className="muted">{took} ms</span>}
      </div>
      <ErrorText error={failure} />
      {error && (
        <div role="alert" className="error sql-error">
          <p>
            <strong>{error.message}</strong>
            {error.code && <span className="muted"> (SQLSTATE {error.code})</span>}
          </p>
          {error.line !== null && (
            <>
              <p>
                Line {error.line}, column {error.column} (statement {error.statement + 1})
              </p>
              <pre className="caret">
                {lineText}
                {'\n'}
                {`${' '.repeat(Math.max(0, (error.column ?? 1) - 1))}^`}
              </pre>
            </>
          )}
          {error.detail && <p>Detail: {error.detail}</p>}
          {error.hint && <p>Hint: {error.hint}</p>}
        </div>
      )}
      {results?.map((r, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: results are in statement order
        <div key={i} className="result">
          <h2>
            {r.command} · {r.rowCount} {r.rowCount === 1 ? 'row' : 'rows'}
            {r.truncated ? ` (first ${r.rows.length} shown)` : ''}
          </h2>
          {r.columns.length > 0 && (
            <div className="scroll-x">
              <table className="grid">
                <caption className="visually-hidden">Result of statement {i + 1}</caption>
                <thead>
                  <tr>
                    {r.columns.map((c, j) => (
                      // biome-ignore lint/suspicious/noArrayIndexKey: column names may repeat
                      <th key={j} scope="col">
                        {c}
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {r.rows.map((row, k) => (
                    // biome-ignore lint/suspicious/noArrayIndexKey: rows have no identity here
                    <tr key={k}>
                      {row.map((v, j) => (
                        // biome-ignore lint/suspicious/noArrayIndexKey: cells in column order
                        <td key={j} className={v === null ? 'null' : undefined}>
                          {cellText(v)}
                        </td>
                      ))}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </div>
      ))}
      <details className="history">
        <summary>History ({history.length})</summary>
        <ul className="plain">
          {history.map((h) => (
            <li key={h}>
              <button type="button" className="link code" onClick={() => setScript(h)}>
                {h.length > 100 ? `${h.slice(0, 97)}…` : h}
              </button>
            </li>
          ))}
        </ul>
      </details>
    </section>
  );
}
