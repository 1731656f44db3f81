import { useBackendQuery } from '@app/backend-react';
import type { TableList } from '@app/backend-server/console-api';
import { ErrorText } from '../components/ErrorText';
import { useConsole } from '../lib/context';
import { Link, navigate } from '../lib/router';
import { TableView } from './TableView';

/** Schemas and their tables; the chosen table's rows, structure and policies. */
export default function Tables({ path }: { path: string }) {
  const { api } = useConsole();
  const [schemaPart, tablePart] = path.split('/');
  const schema = schemaPart || 'public';
  const list = useBackendQuery(['tables'], () => api.get<TableList>('/tables'));
  const tables = list.data?.tables.filter((t) => t.schema === schema) ?? [];
  return (
    <div className="split">
      <section aria-labelledby="tables-heading" className="list-pane">
        <h1 id="tables-heading">Tables</h1>
        <label htmlFor="schema-select">Schema</label>
        <select
          id="schema-select"
          value={schema}
          onChange={(e) => navigate(`tables/${e.target.value}`)}
        >
          {(list.data?.schemas ?? [schema]).map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
        <ErrorText error={list.error} />
        <ul className="plain" aria-label={`Tables of ${schema}`}>
          {tables.map((t) => (
            <li key={t.name}>
              <Link
                to={`tables/${t.schema}/${t.name}`}
                aria-current={t.name === tablePart ? 'page' : undefined}
              >
                {t.name}
              </Link>{' '}
              <span className="muted">
                {t.kind !== 'table' ? t.kind : t.rls ? 'RLS' : 'no RLS'}
              </span>
            </li>
          ))}
          {list.data && tables.length === 0 && <li className="muted">No tables in {schema}.</li>}
        </ul>
      </section>
      <section className="detail-pane" aria-label="Table">
        {tablePart ? (
          <TableView key={`${schema}.${tablePart}`} schema={schema} table={tablePart} />
        ) : (
          <p className="muted">Choose a table.</p>
        )}
      </section>
    </div>
  );
}
