// Invariant: the in-process tier is bounded by bytes as well as by entries: entries far below the
// entry bound are evicted once their sizes (value and key) add up to more than the byte budget.
import { describe, expect, it } from 'vitest';
import { TieredCache } from './tiered-cache.ts';

describe('TieredCache LRU', () => {
  it('is bounded by bytes as well as by entries', async () => {
    const cache = new TieredCache<{ text: string }>({
      kind: 'link',
      lruEntries: 1_000,
      lruMaxBytes: 1024 * 1024,
      sizeOf: (v) => 2 * v.text.length,
      lruTtlMs: 60_000,
      negativeLruTtlMs: 1_000,
      redis: null,
      redisTtlMs: 60_000,
      negativeRedisTtlMs: 1_000,
      load: async (id) => ({ text: id.padEnd(100 * 1024, 'x') }), // ≈ 200 KB each as UTF-16
      revive: (json) => json as { text: string },
      hits: { lru: 0, redis: 0, postgres: 0 },
      onError: (err) => {
        throw err;
      },
    });
    for (let i = 0; i < 50; i++) await cache.get(`k${i}`);
    // 50 entries fit the entry bound; only about five fit the 1 MiB budget.
    expect(cache.localSize).toBeGreaterThan(0);
    expect(cache.localSize).toBeLessThanOrEqual(5);
    expect(cache.peek('k49')).not.toBeUndefined();
  });
});
