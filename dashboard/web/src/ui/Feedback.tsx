// Invariant: the result of an action (a write that has no form field to put an error next to) is
// shown in one polite live region per place: always present, empty before the first result, the
// success text or the failure's message (marked as an error). Failures read the server's message;
// a failure without one (the network) gets one fallback text for the whole SPA.
import { ApiError } from '../api.ts';

export interface Outcome {
  ok: boolean;
  text: string;
}

export const UNREACHABLE = 'The dashboard could not reach the server; try again.';

/** What a failed call says to the user. */
export function messageOf(err: unknown): string {
  return err instanceof ApiError ? err.message : UNREACHABLE;
}

export function Feedback({ outcome, inline = false }: { outcome: Outcome | null; inline?: boolean }) {
  const className = outcome && !outcome.ok ? 'feedback failed' : 'feedback';
  return inline ? (
    <span role="status" className={className}>
      {outcome?.text ?? ''}
    </span>
  ) : (
    <p role="status" className={className}>
      {outcome?.text ?? ''}
    </p>
  );
}
