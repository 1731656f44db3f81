import { useEffect, useState } from 'react';
import { formatList } from '../format';
import { t } from '../i18n';
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
        one
          ? t('replace.titleOne', { name: request.names[0] })
          : t('replace.title', { count: request.names.length })
      }
      onClose={() => done(null)}
    >
      <p>{one ? t('replace.bodyOne') : t('replace.body', { names: formatList(request.names) })}</p>
      <div className="dialog-actions">
        <button type="button" onClick={() => done(null)}>
          {t('dialog.cancel')}
        </button>
        <button type="button" onClick={() => done('keep')}>
          {t('replace.keep')}
        </button>
        <button type="button" className="primary" onClick={() => done('replace')}>
          {t('replace.replace')}
        </button>
      </div>
    </Dialog>
  );
}
