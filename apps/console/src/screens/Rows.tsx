import { useBackendQuery, useQueryClient } from '@app/backend-react';
import type { RowsPage, TableResponse } from '@app/backend-server/console-api';
import { type FormEvent, useState } from 'react';
import { ErrorText } from '../components/ErrorText';
import { RowEditor } from '../components/RowEditor';
import { useConsole } from '../lib/context';
import { cellText } from '../lib/values';

const PAGE = 50;
const OPERATORS = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'like', 'ilike', 'is', 'in'] as const;

interface Filter {
  column: string;
  op: string;
  value: string;
}

type Row = Record<string, unknown>;

/**
 * Rows of a table: through the REST API with the service-role key (paging, filters, sort,
 * insert, edit, delete by primary key) when its schema is exposed; read-only through the
 * console API otherwise.
 */
export function Rows({ detail }: { detail: TableResponse }) {
  const { client, api } = useConsole();
  const queryClient = useQueryClient();
  const [page, setPage] = useState(0);
  const [order, setOrder] = useState<{ column: string; ascending: boolean } | null>(null);
  const [filters, setFilters] = useState<Filter[]>([]);
  const [editing, setEditing] = useState<Row | 'new' | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const { schema, name, columns, primaryKey, exposed } = detail;
  const editable = exposed && detail.kind === 'table' && primaryKey.length > 0;
  const key = ['rows', schema, name, page, order, filters];

  const rows = useBackendQuery(key, async () => {
    if (!exposed) {
      const q = new URLSearchParams({ limit: String(PAGE), offset: String(page * PAGE) });
      if (order) q.set('order', `${order.column}.${order.ascending ? 'asc' : 'desc'}`);
      const res = await api.get<RowsPage>(
        `/tables/${encodeURIComponent(schema)}/${encodeURIComponent(name)}/rows?${q}`,
      );
      return res.error
        ? res
        : { data: { rows: res.data.rows, total: res.data.total }, error: null };
    }
    let query = client.schema(schema).from(name).select('*', { count: 'exact' });
    for (const f of filters) query = query.filter(f.column, f.op, f.value);
    if (order) query = query.order(order.column, { ascending: order.ascending });
    const res = await query.range(page * PAGE, page * PAGE + PAGE - 1);
    return res.error
      ? { data: null, error: res.error }
      : { data: { rows: (res.data ?? []) as Row[], total: res.count ?? 0 }, error: null };
  });

  const refresh = () => queryClient.invalidateQueries({ queryKey: ['rows', schema, name] });
  const matchOf = (row: Row) => Object.fromEntries(primaryKey.map((k) => [k, row[k]]));

  const save = async (values: Row): Promise<string | null> => {
    const table = client.schema(schema).from(name);
    const res =
      editing === 'new'
        ? await table.insert(values)
        : await table.update(values).match(matchOf(editing as Row));
    if (res.error) return res.error.message;
    await refresh();
    return null;
  };
  const remove = async (row: Row) => {
    const label = primaryKey.map((k) => `${k} = ${cellText(row[k])}`).join(', ');
    if (!confirm(`Delete the row where ${label}?`)) return;
    const res = await client.schema(schema).from(name).delete().match(matchOf(row));
    setActionError(res.error ? res.error.message : null);
    await refresh();
  };

  const total = rows.data?.total ?? 0;
  const sortBy = (column: string) => {
    setOrder((o) =>
      o?.column === column ? { column, ascending: !o.ascending } : { column, ascending: true },
    );
    setPage(0);
  };
  return (
    <>
      {!exposed && (
        <p className="note">
          The REST API does not expose the schema <code>{schema}</code>: rows are read-only here
          (use the SQL screen to change them).
        </p>
      )}
      {exposed && !editable && detail.kind === 'table' && (
        <p className="note">This table has no primary key: rows cannot be edited here.</p>
      )}
      {exposed && (
        <FilterBar
          columns={columns.map((c) => c.name)}
          filters={filters}
          onChange={(f) => {
            setFilters(f);
            setPage(0);
          }}
        />
      )}
      <div className="toolbar">
        {editable && (
          <button type="button" className="primary" onClick={() => setEditing('new')}>
            Insert row
          </button>
        )}
        <span aria-live="polite">
          {rows.isPending
            ? 'Loading…'
            : total === 0
              ? 'No rows'
              : `Rows ${page * PAGE + 1}–${Math.min(total, page * PAGE + PAGE)} of ${total}`}
        </span>
        <button type="button" disabled={page === 0} onClick={() => setPage((p) => p - 1)}>
          Previous page
        </button>
        <button
          type="button"
          disabled={(page + 1) * PAGE >= total}
          onClick={() => setPage((p) => p + 1)}
        >
          Next page
        </button>
      </div>
      <ErrorText error={rows.error ?? actionError} />
      <div className="scroll-x">
        <table className="grid rows">
          <caption className="visually-hidden">
            Rows of {schema}.{name}
          </caption>
          <thead>
            <tr>
              {editable && <th scope="col">Actions</th>}
              {columns.map((c) => (
                <th
                  key={c.name}
                  scope="col"
                  aria-sort={
                    order?.column === c.name
                      ? order.ascending
                        ? 'ascending'
                        : 'descending'
                      : undefined
                  }
                >
                  <button type="button" className="link" onClick={() => sortBy(c.name)}>
                    {c.name}
                    {order?.column === c.name ? (order.ascending ? ' ▲' : ' ▼') : ''}
                  </button>
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {(rows.data?.rows ?? []).map((row, i) => (
              <tr key={primaryKey.map((k) => String(row[k])).join('|') || i}>
                {editable && (
                  <td className="nowrap">
                    <button type="button" onClick={() => setEditing(row)}>
                      Edit
                    </button>{' '}
                    <button type="button" onClick={() => remove(row)}>
                      Delete
                    </button>
                  </td>
                )}
                {columns.map((c) => (
                  <td key={c.name} className={row[c.name] === null ? 'null' : undefined}>
                    {cellText(row[c.name])}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {editing && (
        <RowEditor
          title={editing === 'new' ? `Insert into ${name}` : `Edit row of ${name}`}
          columns={columns}
          row={editing === 'new' ? null : editing}
          onSave={save}
          onClose={() => setEditing(null)}
        />
      )}
    </>
  );
}

function FilterBar(props: { columns: string[]; filters: Filter[]; onChange(f: Filter[]): void }) {
  const [column, setColumn] = useState(props.columns[0] ?? '');
  const [op, setOp] = useState('eq');
  const [value, setValue] = useState('');
  const add = (event: FormEvent) => {
    event.preventDefault();
    props.onChange([...props.filters, { column, op, value }]);
    setValue('');
  };
  return (
    <form className="filters" onSubmit={add} aria-label="Filters">
      <label htmlFor="filter-column">Column</label>
      <select id="filter-column" value={column} onChange={(e) => setColumn(e.target.value)}>
        {props.columns.map((c) => (
          <option key={c}>{c}</option>
        ))}
      </select>
      <label htmlFor="filter-op">Operator</label>
      <select id="filter-op" value={op} onChange={(e) => setOp(e.target.value)}>
        {OPERATORS.map((o) => (
          <option key={o}>{o}</option>
        ))}
      </select>
      <label htmlFor="filter-value">Value</label>
      <input
        id="filter-value"
        value={value}
        placeholder={op === 'is' ? 'null, true or false' : op === 'in' ? '(a,b,c)' : ''}
        onChange={(e) => setValue(e.target.value)}
      />
      <button type="submit">Add filter</button>
      {props.filters.map((f, i) => (
        <button
          // biome-ignore lint/suspicious/noArrayIndexKey: filters are a list the user edits in place
          key={i}
          type="button"
          className="chip"
          aria-label={`Remove filter ${f.column} ${f.op} ${f.value}`}
          onClick={() => props.onChange(props.filters.filter((_, j) => j !== i))}
        >
          {f.column} {f.op} {f.value} ✕
        </button>
      ))}
    </form>
  );
}
