// Invariant: a message reaches every handler registered at the moment it is delivered, each with
// its own copy; a handler that throws is reported and never stops delivery to the others nor
// reaches the transport that delivered the message.
import type { Invalidation, InvalidationHandler } from './invalidation-bus.ts';

export type BusErrorReporter = (error: Error) => void;

export const reportToConsole: BusErrorReporter = (error) => {
  console.error(`[invalidation-bus] ${error.message}`);
};

export class HandlerSet {
  readonly #handlers = new Set<InvalidationHandler>();
  readonly #onError: BusErrorReporter;

  constructor(onError: BusErrorReporter) {
    this.#onError = onError;
  }

  get size(): number {
    return this.#handlers.size;
  }

  /** Adds a handler; the returned function removes it (only this registration). */
  add(handler: InvalidationHandler): () => void {
    // A wrapper makes each registration distinct, even for the same function registered twice.
    const registration: InvalidationHandler = (m) => handler(m);
    this.#handlers.add(registration);
    return () => {
      this.#handlers.delete(registration);
    };
  }

  deliver(message: Invalidation): void {
    for (const handler of [...this.#handlers]) {
      try {
        handler({ ...message });
      } catch (err) {
        this.#onError(new Error(`invalidation handler failed: ${describe(err)}`, { cause: err }));
      }
    }
  }

  clear(): void {
    this.#handlers.clear();
  }
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
