// Invariant: every input has a visible label tied to it, and its error (from the server) is shown
// next to it, announced, and linked with aria-describedby; the value typed stays in the caller's state.
import { useId, type InputHTMLAttributes, type ReactNode } from 'react';

export interface FieldProps extends Omit<InputHTMLAttributes<HTMLInputElement>, 'onChange' | 'value'> {
  label: string;
  value: string;
  onChange(value: string): void;
  error?: string;
  hint?: ReactNode;
}

export function Field({ label, value, onChange, error, hint, ...input }: FieldProps) {
  const id = useId();
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const described = [hint ? hintId : null, error ? errorId : null].filter(Boolean).join(' ') || undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input id={id} value={value} onChange={(e) => onChange(e.target.value)} aria-invalid={error ? true : undefined} aria-describedby={described} {...input} />
      {hint ? (
        <p className="hint" id={hintId}>
          {hint}
        </p>
      ) : null}
      {error ? (
        <p className="error" id={errorId} role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** The form-level message (an error not tied to one field). */
export function FormError({ message }: { message?: string }) {
  if (!message) return null;
  return (
    <p className="error form-error" role="alert">
      {message}
    </p>
  );
}
