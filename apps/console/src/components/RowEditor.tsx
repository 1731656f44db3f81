import type { ColumnInfo } from '@app/backend-server/console-api';
import { type FormEvent, useState } from 'react';
import { fromText, inputKind, readOnly, toText } from '../lib/values';
import { Dialog } from './Dialog';
import { ErrorText } from './ErrorText';

interface FieldState {
  text: string;
  isNull: boolean;
  /** Left empty on insert: the column's default applies. */
  useDefault: boolean;
}

/**
 * Edits one row (or a new one) with an input per column type. Computed columns are shown
 * but not sent; on insert, empty columns with a default are left to the database.
 */
export function RowEditor(props: {
  title: string;
  columns: ColumnInfo[];
  row: Record<string, unknown> | null;
  onSave(values: Record<string, unknown>): Promise<string | null>;
  onClose(): void;
}) {
  const { columns, row } = props;
  const [fields, setFields] = useState<Record<string, FieldState>>(() =>
    Object.fromEntries(
      columns.map((c) => [
        c.name,
        {
          text: row ? toText(row[c.name], inputKind(c)) : '',
          isNull: row ? row[c.name] === null : false,
          useDefault: !row && (c.default !== null || c.identity !== null || c.nullable),
        },
      ]),
    ),
  );
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const set = (name: string, patch: Partial<FieldState>) =>
    setFields((f) => ({
      ...f,
      [name]: { ...(f[name] as FieldState), ...patch, useDefault: false },
    }));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const values: Record<string, unknown> = {};
    for (const c of columns) {
      const f = fields[c.name] as FieldState;
      if (readOnly(c) || (!row && f.useDefault)) continue;
      const parsed = fromText(f.text, inputKind(c), f.isNull);
      if (!parsed.ok) {
        setError(`${c.name}: ${parsed.message}`);
        return;
      }
      values[c.name] = parsed.value;
    }
    setSaving(true);
    const failed = await props.onSave(values);
    setSaving(false);
    if (failed) setError(failed);
    else props.onClose();
  };

  return (
    <Dialog title={props.title} onClose={props.onClose}>
      <form onSubmit={submit} className="row-editor">
        {columns.map((c) => {
          const f = fields[c.name] as FieldState;
          const kind = inputKind(c);
          const id = `field-${c.name}`;
          const disabled = readOnly(c) || f.isNull;
          return (
            <div key={c.name} className="field">
              <label htmlFor={id}>
                {c.name} <span className="muted">{c.type}</span>
              </label>
              {kind === 'boolean' || kind === 'enum' ? (
                <select
                  id={id}
                  value={f.text}
                  disabled={disabled}
                  onChange={(e) => set(c.name, { text: e.target.value })}
                >
                  <option value="">{row || !f.useDefault ? '—' : '(default)'}</option>
                  {(kind === 'boolean' ? ['true', 'false'] : (c.enumValues ?? [])).map((v) => (
                    <option key={v}>{v}</option>
                  ))}
                </select>
              ) : kind === 'json' || kind === 'array' || (kind === 'text' && f.text.length > 60) ? (
                <textarea
                  id={id}
                  rows={kind === 'text' ? 3 : 4}
                  value={f.text}
                  disabled={disabled}
                  placeholder={
                    !row && f.useDefault && c.default ? `default: ${c.default}` : undefined
                  }
                  onChange={(e) => set(c.name, { text: e.target.value })}
                />
              ) : (
                <input
                  id={id}
                  type={
                    kind === 'date'
                      ? 'date'
                      : kind === 'integer' || kind === 'number'
                        ? 'text'
                        : 'text'
                  }
                  inputMode={kind === 'integer' || kind === 'number' ? 'decimal' : undefined}
                  value={f.text}
                  disabled={disabled}
                  placeholder={
                    readOnly(c)
                      ? 'computed by the database'
                      : !row && f.useDefault && (c.default || c.identity)
                        ? `default: ${c.default ?? 'identity'}`
                        : kind === 'timestamp'
                          ? '2026-01-31 12:00:00+00'
                          : undefined
                  }
                  onChange={(e) => set(c.name, { text: e.target.value })}
                />
              )}
              {c.nullable && !readOnly(c) && (
                <label className="inline">
                  <input
                    type="checkbox"
                    checked={f.isNull}
                    onChange={(e) => set(c.name, { isNull: e.target.checked })}
                  />
                  NULL
                </label>
              )}
            </div>
          );
        })}
        <ErrorText error={error} />
        <div className="actions">
          <button type="button" onClick={props.onClose}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={saving}>
            {saving ? 'Saving…' : 'Save'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
