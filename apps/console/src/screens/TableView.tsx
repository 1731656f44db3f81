import { useBackendMutation, useBackendQuery, useQueryClient } from '@app/backend-react';
import type { TableResponse } from '@app/backend-server/console-api';
import { useState } from 'react';
import { ErrorText } from '../components/ErrorText';
import { useConsole } from '../lib/context';
import { Rows } from './Rows';

const TABS = ['Rows', 'Structure', 'Policies'] as const;

export function TableView({ schema, table }: { schema: string; table: string }) {
  const { api } = useConsole();
  const [tab, setTab] = useState<(typeof TABS)[number]>('Rows');
  const key = ['table', schema, table];
  const detail = useBackendQuery(key, () =>
    api.get<TableResponse>(`/tables/${encodeURIComponent(schema)}/${encodeURIComponent(table)}`),
  );
  const d = detail.data;
  return (
    <>
      <h2>
        {schema}.{table}
      </h2>
      <ErrorText error={detail.error} />
      <fieldset className="tabs">
        <legend className="visually-hidden">View</legend>
        {TABS.map((t) => (
          <button key={t} type="button" aria-pressed={tab === t} onClick={() => setTab(t)}>
            {t}
          </button>
        ))}
      </fieldset>
      {d && tab === 'Rows' && <Rows detail={d} />}
      {d && tab === 'Structure' && <Structure detail={d} />}
      {d && tab === 'Policies' && <Policies detail={d} queryKey={key} />}
    </>
  );
}

function Structure({ detail }: { detail: TableResponse }) {
  return (
    <>
      <table className="grid">
        <caption>Columns</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Type</th>
            <th scope="col">Nullable</th>
            <th scope="col">Default</th>
          </tr>
        </thead>
        <tbody>
          {detail.columns.map((c) => (
            <tr key={c.name}>
              <td>
                {c.name}
                {detail.primaryKey.includes(c.name) && <span className="tag">primary key</span>}
              </td>
              <td>{c.type}</td>
              <td>{c.nullable ? 'yes' : 'no'}</td>
              <td>
                {c.generated
                  ? 'generated'
                  : c.identity
                    ? `identity (${c.identity})`
                    : (c.default ?? '—')}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <Definitions caption="Indexes" rows={detail.indexes} />
      {detail.constraints.length > 0 && (
        <Definitions caption="Constraints" rows={detail.constraints} />
      )}
      {detail.triggers.length > 0 && <Definitions caption="Triggers" rows={detail.triggers} />}
    </>
  );
}

function Policies({ detail, queryKey }: { detail: TableResponse; queryKey: string[] }) {
  const { api } = useConsole();
  const queryClient = useQueryClient();
  const toggle = useBackendMutation(
    (enabled: boolean) =>
      api.post(
        `/tables/${encodeURIComponent(detail.schema)}/${encodeURIComponent(detail.name)}/rls`,
        { enabled },
      ),
    {
      invalidates: [queryKey, ['tables']],
      onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['rows'] }),
    },
  );
  return (
    <>
      <p>
        Row level security is <strong>{detail.rls ? 'on' : 'off'}</strong>
        {detail.forceRls ? ' (forced for the owner too)' : ''}.{' '}
        <button
          type="button"
          onClick={() => toggle.mutate(!detail.rls)}
          disabled={toggle.isPending}
        >
          {detail.rls ? 'Turn RLS off' : 'Turn RLS on'}
        </button>
      </p>
      <ErrorText error={toggle.error} />
      {detail.policies.length === 0 ? (
        <p className="muted">
          No policies. {detail.rls ? 'With RLS on, only the service role sees rows.' : ''}
        </p>
      ) : (
        <table className="grid">
          <caption>Policies</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Command</th>
              <th scope="col">Roles</th>
              <th scope="col">Using</th>
              <th scope="col">With check</th>
            </tr>
          </thead>
          <tbody>
            {detail.policies.map((p) => (
              <tr key={p.name}>
                <td>
                  {p.name}
                  {!p.permissive && <span className="tag">restrictive</span>}
                </td>
                <td>{p.command}</td>
                <td>{p.roles.join(', ')}</td>
                <td>
                  <code>{p.using ?? '—'}</code>
                </td>
                <td>
                  <code>{p.check ?? '—'}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

/** A table of named SQL definitions (indexes, constraints, triggers). */
function Definitions({
  caption,
  rows,
}: {
  caption: string;
  rows: { name: string; definition: string }[];
}) {
  return (
    <table className="grid">
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Definition</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.name}>
            <td>{r.name}</td>
            <td>
              <code>{r.definition}</code>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
