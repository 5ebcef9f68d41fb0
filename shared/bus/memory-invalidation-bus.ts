// Invariant: within one process, publish() hands the message to every current subscriber before it
// resolves (synchronously, in subscription order), so a cache is evicted before the write that
// caused it is acknowledged. Nothing crosses a process boundary: use the Redis or Postgres bus
// when other processes (redirector workers, the admin CLI) must hear about writes.
import { encodeInvalidation } from './invalidation-codec.ts';
import type { Invalidation, InvalidationBus, InvalidationHandler } from './invalidation-bus.ts';
import { HandlerSet, reportToConsole, type BusErrorReporter } from './handler-set.ts';

export interface MemoryInvalidationBusOptions {
  /** Told when a handler throws; default: console.error. */
  onError?: BusErrorReporter;
}

export class MemoryInvalidationBus implements InvalidationBus {
  readonly #handlers: HandlerSet;
  #closed = false;

  constructor(options: MemoryInvalidationBusOptions = {}) {
    this.#handlers = new HandlerSet(options.onError ?? reportToConsole);
  }

  async publish(message: Invalidation): Promise<void> {
    // Encoding validates the message exactly as the wire adapters do.
    encodeInvalidation(message);
    if (!this.#closed) this.#handlers.deliver(message);
  }

  async subscribe(handler: InvalidationHandler): Promise<() => Promise<void>> {
    if (this.#closed) throw new Error('invalidation bus is closed');
    const remove = this.#handlers.add(handler);
    return async () => remove();
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#handlers.clear();
  }
}
