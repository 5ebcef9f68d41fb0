// Invariant: messages travel as JSON on the Redis channel `${prefix}invalidate`. Publishing uses
// the borrowed client; receiving uses one dedicated subscriber connection, duplicated from it on
// the first subscribe() and owned (and closed) by this bus, which fans each message out to its
// local handlers. A payload that is not a valid Invalidation is reported and dropped, never thrown.
// Delivery is at-most-once: messages published while the subscriber is reconnecting are lost
// (caches keep a TTL for that); ioredis re-subscribes by itself after a reconnect.
import type { Redis } from 'ioredis';
import { decodeInvalidation, encodeInvalidation } from './invalidation-codec.ts';
import type { Invalidation, InvalidationBus, InvalidationHandler } from './invalidation-bus.ts';
import { HandlerSet, reportToConsole, type BusErrorReporter } from './handler-set.ts';

export interface RedisInvalidationBusOptions {
  /** Told about malformed messages, throwing handlers and subscriber connection errors. */
  onError?: BusErrorReporter;
}

export class RedisInvalidationBus implements InvalidationBus {
  readonly channel: string;
  readonly #redis: Redis;
  readonly #handlers: HandlerSet;
  readonly #onError: BusErrorReporter;
  #subscriber: Redis | null = null;
  #listening: Promise<void> | null = null;
  #closed = false;

  /**
   * @param redis a client the caller owns and closes; publishes go through it.
   * @param prefix the deployment's key prefix, e.g. `shortlink:`.
   */
  constructor(redis: Redis, prefix: string, options: RedisInvalidationBusOptions = {}) {
    this.#redis = redis;
    this.channel = `${prefix}invalidate`;
    this.#onError = options.onError ?? reportToConsole;
    this.#handlers = new HandlerSet(this.#onError);
  }

  async publish(message: Invalidation): Promise<void> {
    await this.#redis.publish(this.channel, encodeInvalidation(message));
  }

  async subscribe(handler: InvalidationHandler): Promise<() => Promise<void>> {
    if (this.#closed) throw new Error('invalidation bus is closed');
    await this.#listen();
    const remove = this.#handlers.add(handler);
    return async () => remove();
  }

  /** Disconnects the subscriber connection this bus created; the borrowed client stays open. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#handlers.clear();
    const subscriber = this.#subscriber;
    this.#subscriber = null;
    this.#listening = null;
    if (!subscriber) return;
    try {
      await subscriber.quit();
    } catch {
      subscriber.disconnect();
    }
  }

  #listen(): Promise<void> {
    this.#listening ??= this.#openSubscriber().catch((err: unknown) => {
      this.#listening = null;
      throw err;
    });
    return this.#listening;
  }

  async #openSubscriber(): Promise<void> {
    const subscriber = this.#redis.duplicate();
    this.#subscriber = subscriber;
    subscriber.on('error', (err: Error) => this.#onError(new Error(`redis subscriber: ${err.message}`, { cause: err })));
    subscriber.on('message', (channel: string, payload: string) => {
      if (channel !== this.channel) return;
      const message = decodeInvalidation(payload);
      if (message) this.#handlers.deliver(message);
      else this.#onError(new Error(`ignored malformed invalidation on ${channel}: ${payload.slice(0, 200)}`));
    });
    try {
      await subscriber.subscribe(this.channel);
    } catch (err) {
      if (this.#subscriber === subscriber) this.#subscriber = null;
      subscriber.disconnect();
      throw err;
    }
  }
}
