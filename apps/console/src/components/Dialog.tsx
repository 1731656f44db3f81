import { type ReactNode, useEffect, useRef } from 'react';

/** A modal dialog (the platform's `<dialog>`: focus trap, Escape closes). */
export function Dialog(props: { title: string; onClose(): void; children: ReactNode }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);
  return (
    <dialog ref={ref} aria-label={props.title} onClose={props.onClose} className="dialog">
      <h2>{props.title}</h2>
      {props.children}
    </dialog>
  );
}
