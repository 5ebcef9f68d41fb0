// Invariant: both spool adapters pass the spool contract (Redis only when the real server answers,
// under a unique key prefix), plus what only the file spool can show: segment files removed once
// acknowledged, rotation by size, torn last lines skipped after a crash.
import { appendFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { eventRecords, newOrgId } from '../events/analytics-fixtures.ts';
import { deleteRedisPrefix, redisTestPrefix } from '../../../test/support/servers.ts';
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

const redisUrl = inject('realRedisUrl');
const redisPrefixes: string[] = [];
afterAll(async () => {
  if (redisUrl) for (const p of redisPrefixes) await deleteRedisPrefix(redisUrl, p);
});

describe.skipIf(!redisUrl)('on 127.0.0.1:6379', () => {
  eventSpoolContract('a Redis stream', async () => {
    const prefix = redisTestPrefix();
    redisPrefixes.push(prefix);
    const spool = new RedisStreamSpool({ prefix, redis: redisUrl ?? '' });
    return {
      spool,
      reopen: async () => {
        await spool.close();
        return new RedisStreamSpool({ prefix, redis: redisUrl ?? '' });
      },
    };
  });
});

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
