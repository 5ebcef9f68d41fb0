// Invariant: the Redis spool (production) is one stream, `<prefix>analytics:spool`, one entry per
// batch (fields `token` and `records`, the JSON of its EventRecords), on a server or a Redis
// Cluster alike. XADD is acknowledged by Redis only once the entry is stored (its durability is
// the server's AOF/RDB setting). Readers (the ingest workers' backfill) share the consumer group
// BACKFILL_GROUP: each entry is handed to one of them, and stays pending with it (re-read,
// oldest first, until acknowledged: XACK then XDEL); an entry pending with a reader that has not
// read it for CLAIM_IDLE_MS (a dead one) is claimed by the next reader that looks, so a killed
// worker's batches are taken over within a minute. A batch inserted twice (a reader that was only
// slow) is dropped by its dedup token.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Redis } from 'ioredis';
import type { RedisClient } from '../../redis/redis-client.ts';
import type { EventRecord } from '../events/analytics-event.ts';
import type { EventSpool, SpoolEntry } from './event-spool.ts';

export interface RedisStreamSpoolOptions {
  /** Key prefix shared with the rest of the deployment (REDIS_PREFIX), e.g. `shortlink:`. */
  prefix: string;
  /** Either a connection URL (the spool owns the client) or a client (borrowed, never closed). */
  redis: string | RedisClient;
  /** This reader's name in the group; default: host, pid and a random suffix. */
  consumer?: string;
  /** Entries idle this long with another reader are taken over (default CLAIM_IDLE_MS; tests). */
  claimIdleMs?: number;
}

export const BACKFILL_GROUP = 'backfill';
/** An entry pending this long with a reader that has not re-read it is taken over. */
export const CLAIM_IDLE_MS = 30_000;
/** Readers with nothing pending that have not read for this long leave the group. */
const CONSUMER_RETIRE_MS = 3_600_000;
const RETIRE_CHECK_MS = 600_000;

type StreamEntry = [id: string, fields: string[]];

export class RedisStreamSpool implements EventSpool {
  readonly description: string;
  readonly key: string;
  readonly consumer: string;
  private readonly redis: RedisClient;
  private readonly ownsClient: boolean;
  private readonly claimIdleMs: number;
  private grouped = false;
  private lastRetireCheck = 0;
  appendedBytes = 0;

  constructor(options: RedisStreamSpoolOptions) {
    this.key = `${options.prefix}analytics:spool`;
    this.description = `redis-stream:${this.key}`;
    this.consumer = options.consumer ?? `${hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`;
    this.claimIdleMs = options.claimIdleMs ?? CLAIM_IDLE_MS;
    this.ownsClient = typeof options.redis === 'string';
    this.redis = typeof options.redis === 'string' ? new Redis(options.redis, { maxRetriesPerRequest: 2 }) : options.redis;
  }

  async append(batch: { token: string; records: EventRecord[] }): Promise<void> {
    const records = JSON.stringify(batch.records);
    await this.redis.xadd(this.key, '*', 'token', batch.token, 'records', records);
    this.appendedBytes += batch.token.length + Buffer.byteLength(records);
  }

  /** Up to `max` batches for this reader: what it holds (after taking over a dead reader's), then new ones. */
  async peek(max: number): Promise<SpoolEntry[]> {
    try {
      return await this.peekGrouped(max);
    } catch (err) {
      // The stream and its group are gone (Redis lost its data): make the group again next time.
      if (err instanceof Error && err.message.startsWith('NOGROUP')) this.grouped = false;
      throw err;
    }
  }

  private async peekGrouped(max: number): Promise<SpoolEntry[]> {
    await this.ensureGroup();
    await this.retireIdleConsumers();
    // Entries a reader has not touched for CLAIM_IDLE_MS become this reader's (their reader is gone).
    await this.redis.xautoclaim(this.key, BACKFILL_GROUP, this.consumer, this.claimIdleMs, '0-0', 'COUNT', max, 'JUSTID');
    const held = await this.read(max, '0');
    const fresh = held.length < max ? await this.read(max - held.length, '>') : [];
    const out: SpoolEntry[] = [];
    for (const [id, fields] of [...held, ...fresh]) {
      const map = new Map<string, string>();
      for (let i = 0; i + 1 < fields.length; i += 2) map.set(fields[i] ?? '', fields[i + 1] ?? '');
      const token = map.get('token');
      const records = map.get('records');
      if (token === undefined || records === undefined) {
        // Not ours to interpret; drop it so it cannot block the stream forever.
        await this.ack(id);
        continue;
      }
      out.push({ id, batch: { token, records: JSON.parse(records) as EventRecord[] } });
    }
    return out;
  }

  async ack(id: string): Promise<void> {
    if (!/^\d+-\d+$/.test(id)) return;
    await this.redis.multi().xack(this.key, BACKFILL_GROUP, id).xdel(this.key, id).exec();
  }

  async size(): Promise<number> {
    return this.redis.xlen(this.key);
  }

  async close(): Promise<void> {
    if (this.ownsClient) this.redis.disconnect();
  }

  /** Entries for this reader: its own pending ones (`from` = '0'), or never-delivered ones ('>'). */
  private async read(count: number, from: '0' | '>'): Promise<StreamEntry[]> {
    const reply = (await this.redis.xreadgroup('GROUP', BACKFILL_GROUP, this.consumer, 'COUNT', count, 'STREAMS', this.key, from)) as
      | [string, StreamEntry[]][]
      | null;
    // A pending entry deleted meanwhile comes back without fields: it is done.
    return (reply?.[0]?.[1] ?? []).filter(([, fields]) => fields !== null && fields.length > 0);
  }

  private async ensureGroup(): Promise<void> {
    if (this.grouped) return;
    try {
      await this.redis.xgroup('CREATE', this.key, BACKFILL_GROUP, '0', 'MKSTREAM');
    } catch (err) {
      if (!(err instanceof Error && err.message.startsWith('BUSYGROUP'))) throw err;
    }
    this.grouped = true;
  }

  /** Readers gone for an hour with nothing pending leave the group, so it does not grow with restarts. */
  private async retireIdleConsumers(): Promise<void> {
    if (Date.now() - this.lastRetireCheck < RETIRE_CHECK_MS) return;
    this.lastRetireCheck = Date.now();
    const consumers = (await this.redis.xinfo('CONSUMERS', this.key, BACKFILL_GROUP)) as unknown[][];
    for (const fields of consumers) {
      const info = new Map<string, unknown>();
      for (let i = 0; i + 1 < fields.length; i += 2) info.set(String(fields[i]), fields[i + 1]);
      const name = String(info.get('name'));
      if (name !== this.consumer && Number(info.get('pending')) === 0 && Number(info.get('idle')) > CONSUMER_RETIRE_MS)
        await this.redis.xgroup('DELCONSUMER', this.key, BACKFILL_GROUP, name);
    }
  }
}
