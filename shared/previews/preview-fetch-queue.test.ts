// Invariant: the preview fetch queue is pinned with real timers and controllable jobs: the
// concurrency cap, round-robin fairness between organisations, the per-host rate without
// head-of-line blocking, the queue bounds with their log line, no duplicate URLs, and the README
// stating the figures the code enforces.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HEAD_LIMIT } from './head-scanner.ts';
import { HostRateLimiter } from './host-rate-limiter.ts';
import { HOST_BURST, PreviewFetchQueue, QUEUE_BOUNDS, type PreviewFetchQueueOptions } from './preview-fetch-queue.ts';
import { FETCH_DEFAULTS, PARSE_SLICE } from './preview-fetcher.ts';
import { lineLogger } from '../../test/support/memory-logger.ts';

/** Jobs that finish when the test says so; records start order and the most running at once. */
function jobs() {
  const started: string[] = [];
  const finishers = new Map<string, () => void>();
  let running = 0;
  let maxRunning = 0;
  const run = (url: string): Promise<void> => {
    started.push(url);
    running++;
    maxRunning = Math.max(maxRunning, running);
    return new Promise<void>((resolve) =>
      finishers.set(url, () => {
        running--;
        resolve();
      }),
    );
  };
  const finish = async (url: string): Promise<void> => {
    finishers.get(url)?.();
    await new Promise((r) => setImmediate(r));
  };
  return { started, run, finish, maxRunning: () => maxRunning };
}

const queueWith = (run: PreviewFetchQueueOptions['run'], extra: Partial<PreviewFetchQueueOptions> = {}, logs: string[] = []) =>
  new PreviewFetchQueue({ concurrency: 4, hostFetchesPerMinute: 60_000, run, logger: lineLogger(logs), ...extra });

describe('PreviewFetchQueue', () => {
  it('runs at most `concurrency` refreshes at once and starts the next when one finishes', async () => {
    const j = jobs();
    const q = queueWith(j.run);
    const urls = Array.from({ length: 30 }, (_, i) => `https://h${i}.example/p`);
    for (const u of urls) q.submit('org-a', u);
    expect(j.started).toEqual(urls.slice(0, 4));
    expect(q.size).toBe(26);
    await j.finish(urls[0] as string);
    expect(j.started).toHaveLength(5);
    for (const u of urls) await j.finish(u);
    expect(j.started).toEqual(urls);
    expect(j.maxRunning()).toBe(4);
  });

  it("serves organisations round-robin: one organisation's bulk does not starve another's single save", async () => {
    const j = jobs();
    const q = queueWith(j.run, { concurrency: 1 });
    const bulk = Array.from({ length: 20 }, (_, i) => `https://bulk${i}.example/`);
    for (const u of bulk) q.submit('org-bulk', u);
    q.submit('org-single', 'https://single.example/');
    q.submit('org-other', 'https://other.example/');
    await j.finish(bulk[0] as string);
    expect(j.started).toEqual([bulk[0], 'https://single.example/']);
    await j.finish('https://single.example/');
    expect(j.started).toEqual([bulk[0], 'https://single.example/', 'https://other.example/']);
    await j.finish('https://other.example/');
    expect(j.started).toEqual([bulk[0], 'https://single.example/', 'https://other.example/', bulk[1]]);
    q.close();
  });

  it('rate-limits each host; URLs of other hosts go ahead meanwhile', async () => {
    const j = jobs();
    // 600 a minute = one every 100 ms once the burst is spent.
    const q = queueWith(async (url) => void j.started.push(url), { hostFetchesPerMinute: 600, concurrency: 8 });
    const same = Array.from({ length: HOST_BURST + 3 }, (_, i) => `https://busy.example/${i}`);
    const t0 = Date.now();
    const times = new Map<string, number>();
    const seen = (): void => {
      for (const u of j.started) if (!times.has(u)) times.set(u, Date.now() - t0);
    };
    for (const u of same) q.submit('org-a', u);
    q.submit('org-a', 'https://quiet.example/');
    seen();
    expect(j.started).toEqual([...same.slice(0, HOST_BURST), 'https://quiet.example/']);
    while (times.size < same.length + 1 && Date.now() - t0 < 5_000) {
      await new Promise((r) => setTimeout(r, 5));
      seen();
    }
    expect(j.started.filter((u) => u.startsWith('https://busy.example/'))).toEqual(same);
    const last = times.get(same[same.length - 1] as string) as number;
    // Three more after the burst, 100 ms apart: at least ~300 ms, generously below 5 s.
    expect(last).toBeGreaterThanOrEqual(250);
    expect(last).toBeLessThan(5_000);
  });

  it('is bounded per organisation and in total, logging what it skips; never queues a URL twice', async () => {
    const j = jobs();
    const logs: string[] = [];
    const q = queueWith(j.run, { concurrency: 1, maxQueuedPerOrg: 3, maxQueued: 5 }, logs);
    expect(q.submit('a', 'https://a.example/0')).toBe(true); // starts at once
    for (let i = 1; i <= 3; i++) expect(q.submit('a', `https://a.example/${i}`)).toBe(true);
    expect(q.submit('a', 'https://a.example/4')).toBe(false);
    expect(q.submit('a', 'https://a.example/1')).toBe(false); // already queued: no log, no copy
    expect(q.submit('a', 'https://a.example/0')).toBe(false); // running
    expect(q.submit('b', 'https://b.example/0')).toBe(true);
    expect(q.submit('c', 'https://c.example/0')).toBe(true);
    expect(q.submit('d', 'https://d.example/0')).toBe(false); // 5 in all
    expect(q.size).toBe(5);
    expect(logs).toEqual([
      'preview of https://a.example/4 skipped: fetch queue full (3 queued for organisation a, 3 in all)',
      'preview of https://d.example/0 skipped: fetch queue full (0 queued for organisation d, 5 in all)',
    ]);
    q.close();
  });
});

describe('HostRateLimiter', () => {
  it('gives a burst, then one token per interval, and reports the wait; hosts are independent and bounded', () => {
    let now = 0;
    const limiter = new HostRateLimiter(60, 2, 2, () => now);
    expect([limiter.take('a'), limiter.take('a')]).toEqual([0, 0]);
    expect(limiter.take('a')).toBe(1_000);
    now = 500;
    expect(limiter.take('a')).toBe(500);
    expect(limiter.take('b')).toBe(0);
    now = 1_000;
    expect(limiter.take('a')).toBe(0);
    limiter.take('c'); // a third host: the least recently used one ('b') is forgotten
    expect(limiter.take('b')).toBe(0);
    expect(limiter.take('b')).toBe(0);
  });
});

describe('README', () => {
  it('states the preview limits the code enforces', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    for (const figure of [
      `first ${HEAD_LIMIT / 1024} KiB`,
      `fed ${PARSE_SLICE / 1024} KiB at a time`,
      `at most ${FETCH_DEFAULTS.maxRedirects} redirects`,
      `at most ${QUEUE_BOUNDS.perOrg} URLs per organisation and ${QUEUE_BOUNDS.total.toLocaleString('en')} in all`,
      `bursts of up to ${HOST_BURST}`,
    ]) {
      expect(readme).toContain(figure);
    }
  });
});
