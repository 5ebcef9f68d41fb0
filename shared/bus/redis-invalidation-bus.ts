// Invariant: messages travel as JSON on the Redis channel `${prefix}invalidate`. Publishing uses
// the borrowed client; receiving uses one dedicated subscriber connection, duplicated from it on
// the first subscribe() and owned (and closed) by this bus, which fans each message out to its
// local handlers. A payload that is not a valid Invalidation is reported and dropped, never thrown.
// Delivery is at-most-once: messages published while the subscriber is reconnecting are lost, so
// every reconnect after the first connection calls the subscribers' resync; ioredis re-subscribes
// by itself.
import type { Redis } from 'ioredis';
import type { BusErrorReporter } from './handler-set.ts';
import { WireInvalidationBus, type StopListening } from './wire-invalidation-bus.ts';

export interface RedisInvalidationBusOptions {
  /** Told about malformed messages, throwing handlers and subscriber connection errors. */
  onError?: BusErrorReporter;
}

export class RedisInvalidationBus extends WireInvalidationBus {
  readonly channel: string;
  readonly #redis: Redis;

  /**
   * @param redis a client the caller owns and closes; publishes go through it.
   * @param prefix the deployment's key prefix, e.g. `shortlink:`.
   */
  constructor(redis: Redis, prefix: string, options: RedisInvalidationBusOptions = {}) {
    super(options.onError);
    this.#redis = redis;
    this.channel = `${prefix}invalidate`;
  }

  protected async send(payload: string): Promise<void> {
    await this.#redis.publish(this.channel, payload);
  }

  /** One dedicated subscriber connection, duplicated from the borrowed client and owned here. */
  protected async listen(receive: (payload: string) => void, resync: () => void): Promise<StopListening> {
    const subscriber = this.#redis.duplicate();
    let ready = 0;
    // ioredis re-subscribes on every reconnect: each 'ready' after the first follows a loss.
    subscriber.on('ready', () => {
      if (++ready > 1) resync();
    });
    subscriber.on('error', (err: Error) => this.onError(new Error(`redis subscriber: ${err.message}`, { cause: err })));
    subscriber.on('message', (channel: string, payload: string) => {
      if (channel === this.channel) receive(payload);
    });
    try {
      await subscriber.subscribe(this.channel);
    } catch (err) {
      subscriber.disconnect();
      throw err;
    }
    return async () => {
      try {
        await subscriber.quit();
      } catch {
        subscriber.disconnect();
      }
    };
  }
}
