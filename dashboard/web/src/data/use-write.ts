// Invariant: every write of the SPA is a TanStack Query mutation made here. On success the result
// text (if any) is set first, then `onDone` runs, then the queries it invalidates are read again,
// so the page never shows new data without its message; on failure `onFail` takes the error (a
// form puts it next to its fields), else the outcome holds the server's message.
import { type QueryKey, useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { messageOf, type Outcome } from '../ui/Feedback.tsx';

export interface WriteOptions<V, R> {
  run(vars: V): Promise<R>;
  /** Queries the write changes (their prefixes, from data/queries.ts). */
  invalidates?: readonly QueryKey[];
  /** The success text shown in the outcome; none: the outcome is cleared. */
  said?(result: R, vars: V): string | undefined;
  onDone?(result: R, vars: V): void | Promise<void>;
  onFail?(err: unknown, vars: V): void;
  /** Several writes that report to one place share its outcome (useOutcome); else the write has its own. */
  shared?: OutcomeState;
}

export interface OutcomeState {
  outcome: Outcome | null;
  setOutcome(o: Outcome | null): void;
}

export function useOutcome(): OutcomeState {
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  return { outcome, setOutcome };
}

export function useWrite<V = void, R = unknown>(options: WriteOptions<V, R>) {
  const client = useQueryClient();
  const own = useOutcome();
  const { outcome, setOutcome } = options.shared ?? own;
  const mutation = useMutation({
    mutationFn: options.run,
    onMutate: () => setOutcome(null),
    onSuccess: async (result, vars) => {
      const text = options.said?.(result, vars);
      setOutcome(text === undefined ? null : { ok: true, text });
      await options.onDone?.(result, vars);
      await Promise.all((options.invalidates ?? []).map((queryKey) => client.invalidateQueries({ queryKey })));
    },
    onError: (err, vars) => {
      if (options.onFail) options.onFail(err, vars);
      else setOutcome({ ok: false, text: messageOf(err) });
    },
  });
  return { ...mutation, outcome, setOutcome };
}
