// Invariant: the behaviour every bus with a transport shares, written once: messages travel as
// JSON (invalidation-codec); the first subscribe() starts receiving and later ones reuse it (a
// failed start is retried by the next subscribe); each payload is decoded and fanned out to the
// local handlers, and a malformed one is reported and dropped, never thrown; close() stops
// receiving and never closes the client the bus borrowed. Adapters supply only send and listen,
// and call `resync` whenever their listening connection came back after a loss.
import { decodeInvalidation, encodeInvalidation } from './invalidation-codec.ts';
import type { Invalidation, InvalidationBus, InvalidationHandler, ResyncHandler } from './invalidation-bus.ts';
import { HandlerSet, reportToConsole, type BusErrorReporter } from './handler-set.ts';

export type StopListening = () => Promise<void>;

export abstract class WireInvalidationBus implements InvalidationBus {
  abstract readonly channel: string;
  protected readonly onError: BusErrorReporter;
  readonly #handlers: HandlerSet;
  readonly #resyncs = new Set<ResyncHandler>();
  #listening: Promise<StopListening> | null = null;
  #closed = false;

  protected constructor(onError: BusErrorReporter | undefined) {
    this.onError = onError ?? reportToConsole;
    this.#handlers = new HandlerSet(this.onError);
  }

  /** Sends one encoded message on the channel. */
  protected abstract send(payload: string): Promise<void>;

  /** Starts delivering the channel's payloads to `receive`; resolves once live. */
  protected abstract listen(receive: (payload: string) => void, resync: () => void): Promise<StopListening>;

  async publish(message: Invalidation): Promise<void> {
    await this.send(encodeInvalidation(message));
  }

  async subscribe(handler: InvalidationHandler, onResync?: ResyncHandler): Promise<() => Promise<void>> {
    if (this.#closed) throw new Error('invalidation bus is closed');
    this.#listening ??= this.listen(
      (payload) => this.#receive(payload),
      () => this.#resync(),
    ).catch((err: unknown) => {
      this.#listening = null;
      throw err;
    });
    await this.#listening;
    const remove = this.#handlers.add(handler);
    const resync: ResyncHandler | null = onResync ? () => onResync() : null;
    if (resync) this.#resyncs.add(resync);
    return async () => {
      remove();
      if (resync) this.#resyncs.delete(resync);
    };
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#handlers.clear();
    this.#resyncs.clear();
    const listening = this.#listening;
    this.#listening = null;
    if (!listening) return;
    const stop = await listening.catch(() => null);
    await stop?.();
  }

  #resync(): void {
    for (const resync of [...this.#resyncs]) {
      try {
        resync();
      } catch (err) {
        this.onError(new Error(`resync handler failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err }));
      }
    }
  }

  #receive(payload: string): void {
    const message = decodeInvalidation(payload);
    if (message) this.#handlers.deliver(message);
    else this.onError(new Error(`ignored malformed invalidation on ${this.channel}: ${payload.slice(0, 200)}`));
  }
}
