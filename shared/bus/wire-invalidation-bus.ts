// Invariant: the behaviour every bus with a transport shares, written once: messages travel as
// JSON (invalidation-codec); the first subscribe() starts receiving and later ones reuse it (a
// failed start is retried by the next subscribe); each payload is decoded and fanned out to the
// local handlers, and a malformed one is reported and dropped, never thrown; close() stops
// receiving and never closes the client the bus borrowed. Adapters supply only send and listen.
import { decodeInvalidation, encodeInvalidation } from './invalidation-codec.ts';
import type { Invalidation, InvalidationBus, InvalidationHandler } from './invalidation-bus.ts';
import { HandlerSet, reportToConsole, type BusErrorReporter } from './handler-set.ts';

export type StopListening = () => Promise<void>;

export abstract class WireInvalidationBus implements InvalidationBus {
  abstract readonly channel: string;
  protected readonly onError: BusErrorReporter;
  readonly #handlers: HandlerSet;
  #listening: Promise<StopListening> | null = null;
  #closed = false;

  protected constructor(onError: BusErrorReporter | undefined) {
    this.onError = onError ?? reportToConsole;
    this.#handlers = new HandlerSet(this.onError);
  }

  /** Sends one encoded message on the channel. */
  protected abstract send(payload: string): Promise<void>;

  /** Starts delivering the channel's payloads to `receive`; resolves once live. */
  protected abstract listen(receive: (payload: string) => void): Promise<StopListening>;

  async publish(message: Invalidation): Promise<void> {
    await this.send(encodeInvalidation(message));
  }

  async subscribe(handler: InvalidationHandler): Promise<() => Promise<void>> {
    if (this.#closed) throw new Error('invalidation bus is closed');
    this.#listening ??= this.listen((payload) => this.#receive(payload)).catch((err: unknown) => {
      this.#listening = null;
      throw err;
    });
    await this.#listening;
    const remove = this.#handlers.add(handler);
    return async () => remove();
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#handlers.clear();
    const listening = this.#listening;
    this.#listening = null;
    if (!listening) return;
    const stop = await listening.catch(() => null);
    await stop?.();
  }

  #receive(payload: string): void {
    const message = decodeInvalidation(payload);
    if (message) this.#handlers.deliver(message);
    else this.onError(new Error(`ignored malformed invalidation on ${this.channel}: ${payload.slice(0, 200)}`));
  }
}
