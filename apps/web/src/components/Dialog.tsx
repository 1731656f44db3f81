import { type FormEvent, type ReactNode, useEffect, useId, useRef, useState } from 'react';
import { nameProblem } from '../format';
import { t } from '../i18n';
import { ErrorText } from './ErrorText';
import { Field } from './Form';

/** A modal dialog (native `<dialog>`: focus trap, Escape closes, labelled by its title). */
export function Dialog(props: {
  title: string;
  onClose: () => void;
  children: ReactNode;
  wide?: boolean;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const onClose = useRef(props.onClose);
  onClose.current = props.onClose;
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (!dialog.open) dialog.showModal?.();
    const close = () => onClose.current();
    dialog.addEventListener('close', close);
    return () => dialog.removeEventListener('close', close);
  }, []);
  return (
    <dialog ref={ref} className={props.wide ? 'dialog wide' : 'dialog'} aria-labelledby={titleId}>
      <div className="dialog-head">
        <h2 id={titleId}>{props.title}</h2>
        <button
          type="button"
          className="icon"
          aria-label={t('dialog.close')}
          onClick={() => props.onClose()}
        >
          ×
        </button>
      </div>
      {props.children}
    </dialog>
  );
}

/** The foot of a dialog: its error, Cancel, and the dialog's own button(s). */
export function DialogActions(props: { error: unknown; onCancel(): void; children: ReactNode }) {
  return (
    <>
      <ErrorText error={props.error} />
      <div className="dialog-actions">
        <button type="button" onClick={props.onCancel}>
          {t('dialog.cancel')}
        </button>
        {props.children}
      </div>
    </>
  );
}

/** Asks for a name (new folder, rename): checks the rules inline, shows backend errors inline. */
export function NameDialog(props: {
  title: string;
  label: string;
  initial: string;
  submitLabel: string;
  pending: boolean;
  error: unknown;
  onSubmit: (name: string) => void;
  onClose: () => void;
}) {
  const [name, setName] = useState(props.initial);
  const [problem, setProblem] = useState<string | null>(null);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const trimmed = name.trim();
    const bad = nameProblem(trimmed);
    setProblem(bad);
    if (!bad) props.onSubmit(trimmed);
  };
  return (
    <Dialog title={props.title} onClose={props.onClose}>
      <form onSubmit={submit} noValidate>
        {/* No maxLength: a longer name (typed or pasted) is not cut silently, it is told. */}
        <Field
          label={props.label}
          value={name}
          autoFocus
          error={problem}
          invalid={Boolean(props.error)}
          alert
          onChange={(value) => {
            setName(value);
            const long = value.trim().length > 255;
            setProblem(long ? nameProblem(value.trim()) : null);
          }}
        />
        <DialogActions error={props.error} onCancel={props.onClose}>
          <button type="submit" className="primary" disabled={props.pending}>
            {props.submitLabel}
          </button>
        </DialogActions>
      </form>
    </Dialog>
  );
}

/** Asks to confirm a destructive action. */
export function ConfirmDialog(props: {
  title: string;
  message: string;
  confirmLabel: string;
  pending: boolean;
  error: unknown;
  onConfirm: () => void;
  onClose: () => void;
}) {
  return (
    <Dialog title={props.title} onClose={props.onClose}>
      <p>{props.message}</p>
      <DialogActions error={props.error} onCancel={props.onClose}>
        <button type="button" className="danger" disabled={props.pending} onClick={props.onConfirm}>
          {props.confirmLabel}
        </button>
      </DialogActions>
    </Dialog>
  );
}
