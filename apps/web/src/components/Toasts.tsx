import { useEffect, useRef, useState } from 'react';
import { t } from '../i18n';
import { dismissAllToasts, dismissToast, TOAST_MS, type Toast, useToasts } from '../lib/toasts';

function ToastItem({ toast }: { toast: Toast }) {
  const [held, setHeld] = useState(false);
  const [busy, setBusy] = useState(false);
  const left = useRef(TOAST_MS);
  // Goes away by itself (not an error), unless the pointer or the focus holds it.
  useEffect(() => {
    if (toast.error || held) return;
    const started = Date.now();
    const timer = setTimeout(() => dismissToast(toast.id), left.current);
    return () => {
      clearTimeout(timer);
      left.current = Math.max(2000, left.current - (Date.now() - started));
    };
  }, [toast, held]);
  return (
    <li
      className={toast.error ? 'toast toast-error' : 'toast'}
      onPointerEnter={() => setHeld(true)}
      onPointerLeave={() => setHeld(false)}
      onFocus={() => setHeld(true)}
      onBlur={() => setHeld(false)}
    >
      <span role={toast.error ? 'alert' : undefined}>{toast.message}</span>
      {toast.action ? (
        <button
          type="button"
          className="toast-action"
          disabled={busy}
          onClick={async () => {
            setBusy(true);
            try {
              await toast.action?.run();
            } finally {
              dismissToast(toast.id);
            }
          }}
        >
          {toast.action.label}
        </button>
      ) : null}
      <button
        type="button"
        className="icon"
        aria-label={t('toast.dismiss')}
        onClick={() => dismissToast(toast.id)}
      >
        ×
      </button>
    </li>
  );
}

/** The toasts of the signed-in pages, bottom left (the upload panel is bottom right). */
export function Toasts() {
  const toasts = useToasts();
  // Signed out (the layout goes): no toast outlives the session it belongs to.
  useEffect(() => dismissAllToasts, []);
  const latest = toasts.filter((x) => !x.error).at(-1);
  return (
    <section className="toasts" aria-label={t('toast.region')}>
      {/* Always on the page, so screen readers announce each new message. */}
      <p className="sr-only" role="status">
        {latest?.message ?? ''}
      </p>
      <ul>
        {toasts.map((x) => (
          <ToastItem key={x.id} toast={x} />
        ))}
      </ul>
    </section>
  );
}
