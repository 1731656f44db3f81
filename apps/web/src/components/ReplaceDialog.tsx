import { useEffect, useState } from 'react';
import { Dialog } from './Dialog';

/** What to do with files whose names are taken in the folder they go to. */
export type ReplaceChoice = 'replace' | 'keep' | null;

interface Ask {
  names: string[];
  answer: (choice: ReplaceChoice) => void;
}

let ask: ((request: Ask) => void) | null = null;

/**
 * Asks "Replace / Keep both" for `names` (taken in the target folder): Replace makes a new
 * version of each, Keep both uploads them as "name (1)", null (closed) uploads none of them.
 * Answers "keep" when no host is on the page.
 */
export function askReplace(names: string[]): Promise<ReplaceChoice> {
  return new Promise((resolve) => {
    if (!ask) resolve('keep');
    else ask({ names, answer: resolve });
  });
}

/** Shows the question of `askReplace` (one at a time; rendered once, in the layout). */
export function ReplaceDialogHost() {
  const [request, setRequest] = useState<Ask | null>(null);
  useEffect(() => {
    ask = setRequest;
    return () => {
      ask = null;
    };
  }, []);
  if (!request) return null;
  const done = (choice: ReplaceChoice) => {
    setRequest(null);
    request.answer(choice);
  };
  const one = request.names.length === 1;
  return (
    <Dialog
      title={
        one ? `“${request.names[0]}” already exists` : `${request.names.length} files already exist`
      }
      onClose={() => done(null)}
    >
      <p>
        {one
          ? 'A file with this name is already in this folder.'
          : `Files with these names are already in this folder: ${request.names.join(', ')}.`}{' '}
        Replace keeps the current content as an older version; Keep both adds{' '}
        {one ? 'a copy' : 'copies'} with a number after the name.
      </p>
      <div className="dialog-actions">
        <button type="button" onClick={() => done(null)}>
          Cancel
        </button>
        <button type="button" onClick={() => done('keep')}>
          Keep both
        </button>
        <button type="button" className="primary" onClick={() => done('replace')}>
          Replace
        </button>
      </div>
    </Dialog>
  );
}
