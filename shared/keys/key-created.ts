// Invariant: every API key created in this process is announced, by the SHA-256 of its value
// and only after its row is committed, to every listener registered here at that moment. This is
// in-process only: other processes learn of a new key when they look it up.

type Listener = (keyHash: string) => void;

const listeners = new Set<Listener>();

/** Registers a listener; returns the function that removes it. */
export function onKeyCreated(listener: Listener): () => void {
  listeners.add(listener);
  return () => void listeners.delete(listener);
}

export function announceKeyCreated(keyHash: string): void {
  for (const listener of listeners) listener(keyHash);
}
