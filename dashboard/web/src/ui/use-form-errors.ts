// Invariant: a failed call's errors land next to their fields (by name) and the rest above the
// form; nothing the user typed is reset.
import { useState } from 'react';
import { ApiError } from '../api.ts';

export function useFormErrors() {
  const [errors, setErrors] = useState<Record<string, string>>({});
  return {
    errors,
    clear: () => setErrors({}),
    /** Errors the form found itself, by field. */
    set: (byField: Record<string, string>) => setErrors(byField),
    /** Shows `err`; `fields` are the form's field names (anything else goes to the form message). */
    show: (err: unknown, fields: readonly string[]) => {
      if (!(err instanceof ApiError)) {
        setErrors({ '': 'The dashboard could not reach the server; try again.' });
        return;
      }
      const by = err.byField();
      const out: Record<string, string> = {};
      for (const [k, v] of Object.entries(by)) {
        const key = fields.includes(k) ? k : '';
        out[key] = out[key] ? `${out[key]}; ${v}` : v;
      }
      setErrors(out);
    },
  };
}
