// Invariant: messages travel as JSON entries of one Redis stream, `${prefix}invalidations`
// (XADD, trimmed to about MAX_ENTRIES), on a single server or a Redis Cluster alike. Each process
// reads it from where it subscribed with a blocking XREAD on one dedicated connection,
// duplicated from the borrowed client and owned (and closed) by this bus, and fans each entry out
// to its local handlers. A reader that lost its connection or fell behind goes on from the last
// entry it read, so messages sent meanwhile still arrive; only when the stream no longer holds
// that entry's successor (trimmed away, or Redis lost its data) does it call the subscribers'
// resync. A payload that is not a valid Invalidation is reported and dropped, never thrown.
import { duplicateClient, whenReady, type RedisClient } from '../redis/redis-client.ts';
import type { BusErrorReporter } from './handler-set.ts';
import { WireInvalidationBus, type StopListening } from './wire-invalidation-bus.ts';

export interface RedisInvalidationBusOptions {
  /** Told about malformed messages, throwing handlers and reader connection errors. */
  onError?: BusErrorReporter;
}

/** Entries the stream keeps (approximately): minutes of invalidations at any realistic rate. */
const MAX_ENTRIES = 100_000;
/** How long one XREAD waits for entries; the reader's command timeout allows for it. */
const BLOCK_MS = 1_000;
const READ_COUNT = 1_000;
const RETRY_MS = 200;
/** A duplicated cluster client reads its slot map before its first command. */
const READY_MS = 5_000;

/** Stream ids `ms-seq`, compared as numbers. */
function idAfter(a: string, b: string): boolean {
  const [am = 0n, as = 0n] = a.split('-').map(BigInt);
  const [bm = 0n, bs = 0n] = b.split('-').map(BigInt);
  return am === bm ? as > bs : am > bm;
}

export class RedisInvalidationBus extends WireInvalidationBus {
  readonly channel: string;
  readonly #redis: RedisClient;

  /**
   * @param redis a client the caller owns and closes; publishes go through it.
   * @param prefix the deployment's key prefix, e.g. `shortlink:`.
   */
  constructor(redis: RedisClient, prefix: string, options: RedisInvalidationBusOptions = {}) {
    super(options.onError);
    this.#redis = redis;
    this.channel = `${prefix}invalidations`;
  }

  /** The reader connection's name (CLIENT LIST). */
  get readerName(): string {
    return `invalidation-reader:${this.channel}`;
  }

  protected async send(payload: string): Promise<void> {
    await this.#redis.xadd(this.channel, 'MAXLEN', '~', MAX_ENTRIES, '*', 'm', payload);
  }

  /** The id of the stream's newest entry, '0-0' when it has none. */
  async #lastId(client: RedisClient): Promise<string> {
    const [newest] = await client.xrevrange(this.channel, '+', '-', 'COUNT', 1);
    return newest?.[0] ?? '0-0';
  }

  /**
   * After a failed read, where to go on from `lastId`: null when the stream still holds it (every
   * later entry is there), else the id to read after (the stream's newest) once subscribers resync:
   * the entries after `lastId` were trimmed away, or Redis lost the stream.
   */
  async #recover(client: RedisClient, lastId: string): Promise<string | null> {
    if (lastId === '0-0') return null;
    const [oldest] = await client.xrange(this.channel, '-', '+', 'COUNT', 1);
    if (oldest !== undefined && !idAfter(oldest[0], lastId)) return null;
    return this.#lastId(client);
  }

  protected async listen(receive: (payload: string) => void, resync: () => void): Promise<StopListening> {
    const reader = duplicateClient(this.#redis, { commandTimeoutMs: BLOCK_MS + 2_000, name: this.readerName });
    reader.on('error', (err: Error) => this.onError(new Error(`redis invalidation reader: ${err.message}`, { cause: err })));
    let lastId: string;
    try {
      await whenReady(reader, READY_MS);
      lastId = await this.#lastId(reader);
    } catch (err) {
      reader.disconnect();
      throw err;
    }
    let stopped = false;
    let failed = false;
    const loop = (async () => {
      while (!stopped) {
        try {
          if (failed) {
            const resume = await this.#recover(reader, lastId);
            if (resume !== null) {
              lastId = resume;
              resync();
            }
            failed = false;
          }
          const reply = await reader.xread('COUNT', READ_COUNT, 'BLOCK', BLOCK_MS, 'STREAMS', this.channel, lastId);
          for (const [, entries] of reply ?? []) {
            for (const [id, fields] of entries) {
              lastId = id;
              const at = fields.indexOf('m');
              if (at >= 0 && at + 1 < fields.length) receive(fields[at + 1] as string);
            }
          }
        } catch (err) {
          if (stopped) break;
          if (!failed) this.onError(new Error(`redis invalidation reader: ${err instanceof Error ? err.message : String(err)}`, { cause: err }));
          failed = true;
          await new Promise((r) => setTimeout(r, RETRY_MS));
        }
      }
    })();
    return async () => {
      stopped = true;
      reader.disconnect();
      await loop;
    };
  }
}
