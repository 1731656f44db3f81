import { useState } from 'react';
import { t } from '../i18n';
import type { FolderRow } from '../lib/api';
import { Dialog, DialogActions } from './Dialog';
import type { Entry } from './FileList';
import { FormField } from './Form';

/**
 * Folders as an indented tree, without the moved folders and their descendants (a folder
 * whose parent is not offered, e.g. the top of a shared tree, starts the tree).
 */
function tree(
  folders: FolderRow[],
  excluded: Set<string>,
): Array<{ folder: FolderRow; depth: number }> {
  const children = new Map<string | null, FolderRow[]>();
  const offered = new Set(folders.map((f) => f.id));
  for (const f of folders) {
    const parent = f.parent_id && offered.has(f.parent_id) ? f.parent_id : null;
    const list = children.get(parent) ?? [];
    list.push(f);
    children.set(parent, list);
  }
  const out: Array<{ folder: FolderRow; depth: number }> = [];
  const walk = (parent: string | null, depth: number) => {
    for (const f of (children.get(parent) ?? []).sort((a, b) => a.name.localeCompare(b.name))) {
      if (excluded.has(f.id)) continue;
      out.push({ folder: f, depth });
      walk(f.id, depth + 1);
    }
  };
  walk(null, 0);
  return out;
}

/**
 * Picks where selected entries go: among `folders` (those I own or edit, of the items' owner),
 * and My files when `root` (my own items only).
 */
export default function MoveDialog(props: {
  entries: Entry[];
  folders: FolderRow[];
  root: boolean;
  pending: boolean;
  error: unknown;
  onMove: (destination: string | null) => void;
  onClose: () => void;
}) {
  const excluded = new Set(props.entries.filter((e) => e.kind === 'folder').map((e) => e.row.id));
  const options = tree(props.folders, excluded);
  const [destination, setDestination] = useState(props.root ? '' : (options[0]?.folder.id ?? ''));
  return (
    <Dialog
      title={
        props.entries.length === 1
          ? t('move.titleOne', { name: props.entries[0]?.row.name })
          : t('move.title', { count: props.entries.length })
      }
      onClose={props.onClose}
    >
      <form
        onSubmit={(e) => {
          e.preventDefault();
          props.onMove(destination || null);
        }}
      >
        <FormField
          label={t('move.destination')}
          control={({ id }) => (
            <select id={id} value={destination} onChange={(e) => setDestination(e.target.value)}>
              {props.root ? <option value="">{t('views.myFiles')}</option> : null}
              {options.map(({ folder, depth }) => (
                <option key={folder.id} value={folder.id}>
                  {`${'\u00a0\u00a0'.repeat(depth + 1)}${folder.name}`}
                </option>
              ))}
            </select>
          )}
        />
        <DialogActions error={props.error} onCancel={props.onClose}>
          <button
            type="submit"
            className="primary"
            disabled={props.pending || (!props.root && options.length === 0)}
          >
            {t('cmd.move')}
          </button>
        </DialogActions>
      </form>
    </Dialog>
  );
}
