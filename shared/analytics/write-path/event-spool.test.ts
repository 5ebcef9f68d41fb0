// Invariant: both spool adapters pass the spool contract (Redis on the server and on the run's
// Redis Cluster when they answer, under a unique key prefix), the Redis stream's consumer group
// hands each batch to one reader and a silent reader's to another, plus what only the file spool can show: segment files removed once
// acknowledged, rotation by size, torn last lines skipped after a crash.
import { appendFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { eventRecords, newOrgId } from '../events/analytics-fixtures.ts';
import { connectTestRedis, deletePrefixOn, redisTestTargets } from '../../../test/support/redis-targets.ts';
import { redisTestPrefix } from '../../../test/support/servers.ts';
import { eventSpoolContract } from './event-spool.contract.ts';
import { FileSpool } from './file-spool.ts';
import { RedisStreamSpool } from './redis-stream-spool.ts';

const root = mkdtempSync(join(process.cwd(), '.tmp', 'spool-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const freshDir = (): string => mkdtempSync(join(root, 'd-'));

eventSpoolContract('file segments', async () => {
  const dir = freshDir();
  const spool = await FileSpool.open(dir, { maxSegmentBytes: 64 * 1024 });
  return {
    spool,
    reopen: async () => {
      await spool.close();
      return FileSpool.open(dir, { maxSegmentBytes: 64 * 1024 });
    },
  };
});

const redisPrefixes: string[] = [];
for (const target of redisTestTargets()) {
  const redis = await connectTestRedis(target);
  afterAll(async () => {
    for (const p of redisPrefixes) await deletePrefixOn(redis, p);
    redis.disconnect();
  });

  describe(`on ${target.name}`, () => {
    eventSpoolContract('a Redis stream', async () => {
      const prefix = redisTestPrefix();
      redisPrefixes.push(prefix);
      // A reopen is the same reader restarted (its name, e.g. a stable host name, kept).
      const spool = new RedisStreamSpool({ prefix, redis, consumer: 'reader-1' });
      return { spool, reopen: async () => new RedisStreamSpool({ prefix, redis, consumer: 'reader-1' }) };
    });

    it("hands each batch to one reader of the group, and a silent reader's batches to another once idle", async () => {
      const prefix = redisTestPrefix();
      redisPrefixes.push(prefix);
      const writer = new RedisStreamSpool({ prefix, redis });
      const a = new RedisStreamSpool({ prefix, redis, consumer: 'a', claimIdleMs: 300 });
      const b = new RedisStreamSpool({ prefix, redis, consumer: 'b', claimIdleMs: 300 });
      const batches = Array.from({ length: 6 }, () => ({ token: randomUUID(), records: eventRecords(newOrgId(), 1, 1_767_225_600_000_000n) }));
      for (const x of batches.slice(0, 4)) await writer.append(x);
      const gotA = await a.peek(2);
      const gotB = await b.peek(10);
      expect(gotA.map((e) => e.batch.token)).toEqual(batches.slice(0, 2).map((x) => x.token));
      expect(gotB.map((e) => e.batch.token)).toEqual(batches.slice(2, 4).map((x) => x.token)); // never a's
      expect((await a.peek(10)).map((e) => e.batch.token)).toEqual(batches.slice(0, 2).map((x) => x.token)); // a keeps its own
      for (const e of gotB) await b.ack(e.id);
      // a goes silent (killed): after the idle time, b takes a's batches over, and new ones too.
      for (const x of batches.slice(4)) await writer.append(x);
      await new Promise((r) => setTimeout(r, 400));
      const takenOver = await b.peek(10);
      expect(takenOver.map((e) => e.batch.token).sort()).toEqual([batches[0], batches[1], batches[4], batches[5]].map((x) => x?.token).sort());
      for (const e of takenOver) await b.ack(e.id);
      expect(await writer.size()).toBe(0);
      expect(await a.peek(10)).toEqual([]);
    });
  });
}

describe('FileSpool files', () => {
  const batch = (n: number) => ({ token: randomUUID(), records: eventRecords(newOrgId(), n, 1_767_225_600_000_000n) });
  const segments = (dir: string): string[] =>
    readdirSync(dir)
      .filter((f) => f.endsWith('.ndjson'))
      .sort();

  it('rotates by size and deletes a segment once all its batches are acknowledged', async () => {
    const dir = freshDir();
    const spool = await FileSpool.open(dir, { maxSegmentBytes: 4096 });
    for (let i = 0; i < 6; i++) await spool.append(batch(3)); // ≈ 2.3 KB each → one or two per segment
    const before = segments(dir);
    expect(before.length).toBeGreaterThanOrEqual(3);
    const entries = await spool.peek(100);
    expect(entries).toHaveLength(6);
    await spool.ack(entries[0]?.id ?? '');
    for (const e of entries.slice(1)) await spool.ack(e.id);
    expect(segments(dir)).toEqual([]);
    await spool.close();
  });

  it('never appends to a segment left by an earlier process, and skips a torn last line', async () => {
    const dir = freshDir();
    const first = await FileSpool.open(dir);
    const kept = batch(2);
    await first.append(kept);
    await first.close();
    const [seg] = segments(dir);
    appendFileSync(join(dir, seg ?? ''), '{"token":"torn","recor'); // crash mid-write
    writeFileSync(join(dir, 'segment-000000000099.ndjson.tmp'), 'ignored');
    const second = await FileSpool.open(dir);
    const later = batch(1);
    await second.append(later);
    expect(segments(dir)).toHaveLength(2);
    const got = await second.peek(10);
    expect(got.map((e) => e.batch.token)).toEqual([kept.token, later.token]);
    expect(second.corruptLines).toBe(1);
    for (const e of got) await second.ack(e.id);
    expect(segments(dir)).toEqual([]);
    await second.close();
  });
});
