// Invariant: the Redis spool (production) is one stream, `<prefix>analytics:spool`, one entry per
// batch (fields `token` and `records`, the JSON of its EventRecords). XADD is acknowledged by
// Redis only once the entry is stored (its durability is the server's AOF/RDB setting), XRANGE
// reads oldest first, XDEL removes an entry after its successful insert. Several backfill workers
// may read the same entries; the batch tokens make their repeated inserts harmless.
import { Redis } from 'ioredis';
import type { EventRecord } from '../events/analytics-event.ts';
import type { EventSpool, SpoolEntry } from './event-spool.ts';

export interface RedisStreamSpoolOptions {
  /** Key prefix shared with the rest of the deployment (REDIS_PREFIX), e.g. `shortlink:`. */
  prefix: string;
  /** Either a connection URL (the spool owns the client) or a client (borrowed, never closed). */
  redis: string | Redis;
}

export class RedisStreamSpool implements EventSpool {
  readonly description: string;
  readonly key: string;
  private readonly redis: Redis;
  private readonly ownsClient: boolean;
  appendedBytes = 0;

  constructor(options: RedisStreamSpoolOptions) {
    this.key = `${options.prefix}analytics:spool`;
    this.description = `redis-stream:${this.key}`;
    this.ownsClient = typeof options.redis === 'string';
    this.redis = typeof options.redis === 'string' ? new Redis(options.redis, { maxRetriesPerRequest: 2 }) : options.redis;
  }

  async append(batch: { token: string; records: EventRecord[] }): Promise<void> {
    const records = JSON.stringify(batch.records);
    await this.redis.xadd(this.key, '*', 'token', batch.token, 'records', records);
    this.appendedBytes += batch.token.length + Buffer.byteLength(records);
  }

  async peek(max: number): Promise<SpoolEntry[]> {
    const entries = await this.redis.xrange(this.key, '-', '+', 'COUNT', max);
    const out: SpoolEntry[] = [];
    for (const [id, fields] of entries) {
      const map = new Map<string, string>();
      for (let i = 0; i + 1 < fields.length; i += 2) map.set(fields[i] ?? '', fields[i + 1] ?? '');
      const token = map.get('token');
      const records = map.get('records');
      if (token === undefined || records === undefined) {
        // Not ours to interpret; drop it so it cannot block the stream forever.
        await this.redis.xdel(this.key, id);
        continue;
      }
      out.push({ id, batch: { token, records: JSON.parse(records) as EventRecord[] } });
    }
    return out;
  }

  async ack(id: string): Promise<void> {
    if (!/^\d+-\d+$/.test(id)) return;
    await this.redis.xdel(this.key, id);
  }

  async size(): Promise<number> {
    return this.redis.xlen(this.key);
  }

  async close(): Promise<void> {
    if (this.ownsClient) this.redis.disconnect();
  }
}
