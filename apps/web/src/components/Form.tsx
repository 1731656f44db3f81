/**
 * The pieces every form of Drive is made of: a labelled field with its hint or its error
 * (wired for screen readers), and the end of a form — its error, an optional note, and its
 * submit button.
 */
import { type InputHTMLAttributes, type ReactNode, useId } from 'react';
import { ErrorText } from './ErrorText';

/** What a field's control carries: its id, and whether and by what it is described. */
export interface ControlAttributes {
  id: string;
  'aria-invalid'?: true;
  'aria-describedby'?: string;
}

interface FrameProps {
  label: string;
  /** Shown under the control while there is no error (and describes it). */
  hint?: string;
  /** Shown under the control instead of the hint (and describes it); the control is invalid. */
  error?: string | null;
  /** Invalid for another reason than `error` (e.g. the backend refused the value). */
  invalid?: boolean;
  /** The error is announced as it appears (for errors shown while typing). */
  alert?: boolean;
  /** More, after the control and its message. */
  children?: ReactNode;
}

/**
 * A label, a control and its hint or error. `control` draws the control with the attributes
 * it is given: `<label for>`, `aria-invalid` when there is an error, `aria-describedby` the
 * error (else the hint).
 *
 * @example
 * <FormField label="Destination" control={(a) => <select {...a}>…</select>} />
 */
export function FormField(
  props: FrameProps & { control(attributes: ControlAttributes): ReactNode },
) {
  const id = useId();
  const errorId = `${id}-error`;
  const hintId = `${id}-hint`;
  const described = props.error ? errorId : props.hint ? hintId : undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      {props.control({
        id,
        'aria-invalid': props.error || props.invalid ? true : undefined,
        'aria-describedby': described,
      })}
      {props.error ? (
        <p className="field-error" id={errorId} role={props.alert ? 'alert' : undefined}>
          {props.error}
        </p>
      ) : props.hint ? (
        <p className="hint" id={hintId}>
          {props.hint}
        </p>
      ) : null}
      {props.children}
    </div>
  );
}

type InputProps = Omit<
  InputHTMLAttributes<HTMLInputElement>,
  'id' | 'onChange' | 'children' | 'aria-invalid' | 'aria-describedby'
> & { onChange(value: string): void };

/**
 * A text input as a form field; the input's attributes (name, type, autoComplete, …) pass
 * through, and `onChange` gets the value.
 *
 * @example
 * <Field label="Email" name="email" type="email" value={email} onChange={setEmail} error={problem} />
 */
export function Field({
  label,
  hint,
  error,
  invalid,
  alert,
  children,
  onChange,
  ...input
}: FrameProps & InputProps) {
  return (
    <FormField
      label={label}
      hint={hint}
      error={error}
      invalid={invalid}
      alert={alert}
      control={(attributes) => (
        <input {...input} {...attributes} onChange={(e) => onChange(e.target.value)} />
      )}
    >
      {children}
    </FormField>
  );
}

/**
 * The end of a form: its error (one sentence, announced), an optional note (e.g. "Saved."),
 * and the submit button, disabled while the form is being sent.
 *
 * @example
 * <Submit error={signIn.error} pending={signIn.isPending} busy="Signing in…" primary>Sign in</Submit>
 */
export function Submit(props: {
  error?: unknown;
  /** Said instead of what the error means. */
  message?: string;
  note?: ReactNode;
  pending?: boolean;
  /** The button's words while pending (else its usual ones). */
  busy?: string;
  primary?: boolean;
  children: ReactNode;
}) {
  return (
    <>
      <ErrorText error={props.error} message={props.message} />
      {props.note}
      <button
        className={props.primary ? 'primary' : undefined}
        type="submit"
        disabled={props.pending}
      >
        {props.pending && props.busy ? props.busy : props.children}
      </button>
    </>
  );
}
