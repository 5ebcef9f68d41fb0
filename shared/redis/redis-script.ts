// Invariant: a Lua script is sent to Redis in full at most once per connection lifetime of its
// SHA: calls go by EVALSHA and fall back to EVAL only when Redis answers NOSCRIPT (after a
// restart or SCRIPT FLUSH). On a cluster the script runs on the master of its keys' one slot.
import { createHash } from 'node:crypto';
import type { RedisClient } from './redis-client.ts';

export class RedisScript {
  readonly #source: string;
  readonly #sha: string;

  constructor(source: string) {
    this.#source = source;
    this.#sha = createHash('sha1').update(source).digest('hex');
  }

  async run(redis: RedisClient, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    try {
      return await redis.evalsha(this.#sha, keys.length, ...keys, ...args);
    } catch (err) {
      if (err instanceof Error && err.message.startsWith('NOSCRIPT')) {
        return await redis.eval(this.#source, keys.length, ...keys, ...args);
      }
      throw err;
    }
  }
}
