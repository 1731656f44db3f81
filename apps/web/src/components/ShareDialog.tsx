import type { Role } from '../lib/roles';
import type { Entry } from '../lib/selection';
import { Dialog } from './Dialog';
import { LinksSection } from './LinksSection';
import { PeopleSection } from './PeopleSection';

/**
 * Sharing items: with people (everyone with access sees who has it; the owner manages it),
 * and, for the owner of one item, links for anyone.
 */
export default function ShareDialog({
  entries,
  role,
  onClose,
}: {
  entries: Entry[];
  role: Role | null;
  onClose: () => void;
}) {
  const one = entries.length === 1 ? entries[0] : undefined;
  return (
    <Dialog
      title={one ? `Share “${one.row.name}”` : `Share ${entries.length} items`}
      onClose={onClose}
      wide
    >
      <PeopleSection entries={entries} role={role} onDone={onClose} />
      {one && role === 'owner' ? <LinksSection entry={one} /> : null}
    </Dialog>
  );
}
