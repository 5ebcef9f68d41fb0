// Invariant: every RateLimiter adapter passes this one suite unchanged, so they answer alike for the
// same calls and clock. `makeLimiter(clock)` drives the adapter with a hand-driven clock (ms);
// `makeLimiter()` uses the adapter's production clock. Each test uses its own random keys.
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import type { RateDecision, RateLimiter } from './rate-limiter.ts';

export type MakeRateLimiter = (clock?: () => number) => RateLimiter | Promise<RateLimiter>;

class ManualClock {
  ms = 1_767_225_600_000; // 2026-01-01T00:00:00Z
  readonly now = (): number => this.ms;
  advance(ms: number): void {
    this.ms += ms;
  }
}

const freshKey = (label: string): string => `${label}-${randomBytes(6).toString('hex')}`;

async function drain(limiter: RateLimiter, key: string, limitPerMin: number, max: number): Promise<RateDecision[]> {
  const out: RateDecision[] = [];
  for (let i = 0; i < max; i++) {
    const d = await limiter.consume(key, limitPerMin);
    out.push(d);
    if (!d.allowed) break;
  }
  return out;
}

export function rateLimiterContract(name: string, makeLimiter: MakeRateLimiter): void {
  describe(`RateLimiter contract: ${name}`, () => {
    const opened: RateLimiter[] = [];
    const open = async (clock?: () => number): Promise<RateLimiter> => {
      const limiter = await makeLimiter(clock);
      opened.push(limiter);
      return limiter;
    };
    afterAll(async () => {
      await Promise.all(opened.map((l) => l.close()));
    });

    it('allows exactly N in a burst, counting remaining down, then denies', async () => {
      const clock = new ManualClock();
      const limiter = await open(clock.now);
      const key = freshKey('burst');
      for (let i = 1; i <= 20; i++) {
        expect(await limiter.consume(key, 20)).toEqual({ allowed: true, retryAfterSeconds: 0, remaining: 20 - i });
      }
      const denied = await limiter.consume(key, 20);
      expect(denied).toEqual({ allowed: false, retryAfterSeconds: 3, remaining: 0 });
      // Denials cost nothing and keep denying while the clock stands still.
      expect((await limiter.consume(key, 20)).allowed).toBe(false);
    });

    it('answers retryAfterSeconds = ceil(seconds until one token), at least 1', async () => {
      const clock = new ManualClock();
      const limiter = await open(clock.now);
      for (const [limit, expected] of [
        [7, 9], // 60/7 = 8.57 s
        [10, 6],
        [60, 1],
        [600, 1], // 0.1 s rounds up to 1
      ] as const) {
        const key = freshKey(`retry-${limit}`);
        const burst = await drain(limiter, key, limit, limit + 1);
        expect(burst.filter((d) => d.allowed)).toHaveLength(limit);
        expect(burst.at(-1)).toEqual({ allowed: false, retryAfterSeconds: expected, remaining: 0 });
      }
      // Part of the way to the next token, the wait shrinks.
      const key = freshKey('retry-partial');
      await drain(limiter, key, 10, 11);
      clock.advance(2_500);
      expect(await limiter.consume(key, 10)).toEqual({ allowed: false, retryAfterSeconds: 4, remaining: 0 });
    });

    it('keeps keys independent', async () => {
      const clock = new ManualClock();
      const limiter = await open(clock.now);
      const a = freshKey('a');
      const b = freshKey('b');
      expect((await drain(limiter, a, 5, 6)).filter((d) => d.allowed)).toHaveLength(5);
      expect(await limiter.consume(b, 5)).toEqual({ allowed: true, retryAfterSeconds: 0, remaining: 4 });
      expect((await limiter.consume(a, 5)).allowed).toBe(false);
    });

    it('refills limitPerMin/60 tokens a second, never above capacity', async () => {
      const clock = new ManualClock();
      const limiter = await open(clock.now);
      const key = freshKey('refill');
      await drain(limiter, key, 60, 61);
      clock.advance(999);
      expect(await limiter.consume(key, 60)).toEqual({ allowed: false, retryAfterSeconds: 1, remaining: 0 });
      clock.advance(1);
      expect(await limiter.consume(key, 60)).toEqual({ allowed: true, retryAfterSeconds: 0, remaining: 0 });
      expect((await limiter.consume(key, 60)).allowed).toBe(false);
      clock.advance(10_000); // ten tokens
      const after = await drain(limiter, key, 60, 20);
      expect(after.filter((d) => d.allowed)).toHaveLength(10);
      clock.advance(3_600_000);
      expect(await limiter.consume(key, 60)).toEqual({ allowed: true, retryAfterSeconds: 0, remaining: 59 });
    });

    it('does not refill when the clock steps back', async () => {
      const clock = new ManualClock();
      const limiter = await open(clock.now);
      const key = freshKey('backwards');
      await drain(limiter, key, 60, 61);
      clock.advance(-30_000);
      expect((await limiter.consume(key, 60)).allowed).toBe(false);
      clock.advance(30_000);
      expect((await limiter.consume(key, 60)).allowed).toBe(false);
      clock.advance(1_000);
      expect((await limiter.consume(key, 60)).allowed).toBe(true);
    });

    it('refills in real time with the production clock', async () => {
      const limiter = await open();
      const key = freshKey('realtime');
      const burst = await drain(limiter, key, 600, 1_000); // 600 a minute = 10 tokens a second
      expect(burst.at(-1)?.allowed).toBe(false);
      expect(burst.length).toBeGreaterThanOrEqual(601);
      await new Promise((r) => setTimeout(r, 150));
      expect((await limiter.consume(key, 600)).allowed).toBe(true);
    });

    it('applies a changed limit: tokens are clamped to a lower capacity', async () => {
      const clock = new ManualClock();
      const limiter = await open(clock.now);
      const key = freshKey('downgrade');
      for (let i = 0; i < 10; i++) await limiter.consume(key, 100);
      // 90 tokens held; the new capacity is 10.
      expect(await limiter.consume(key, 10)).toEqual({ allowed: true, retryAfterSeconds: 0, remaining: 9 });
      const rest = await drain(limiter, key, 10, 20);
      expect(rest.filter((d) => d.allowed)).toHaveLength(9);
      expect(rest.at(-1)).toEqual({ allowed: false, retryAfterSeconds: 6, remaining: 0 });
    });

    it('applies a changed limit: a higher limit refills faster and holds more, with no free reset', async () => {
      const clock = new ManualClock();
      const limiter = await open(clock.now);
      const key = freshKey('upgrade');
      await drain(limiter, key, 10, 11);
      expect(await limiter.consume(key, 600)).toEqual({ allowed: false, retryAfterSeconds: 1, remaining: 0 });
      clock.advance(100); // one token at 600/min
      expect(await limiter.consume(key, 600)).toEqual({ allowed: true, retryAfterSeconds: 0, remaining: 0 });
      clock.advance(3_600_000);
      expect(await limiter.consume(key, 600)).toEqual({ allowed: true, retryAfterSeconds: 0, remaining: 599 });
    });

    it('allows exactly the limit among 50 concurrent calls', async () => {
      const clock = new ManualClock();
      const limiter = await open(clock.now);
      const key = freshKey('concurrent');
      const results = await Promise.all(Array.from({ length: 50 }, () => limiter.consume(key, 20)));
      expect(results.filter((d) => d.allowed)).toHaveLength(20);
      expect(results.filter((d) => !d.allowed).every((d) => d.retryAfterSeconds === 3)).toBe(true);
      expect(new Set(results.filter((d) => d.allowed).map((d) => d.remaining))).toEqual(new Set(Array.from({ length: 20 }, (_, i) => i)));
    });

    it('rejects a limit that is not a positive whole number', async () => {
      const limiter = await open(new ManualClock().now);
      for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
        await expect(limiter.consume(freshKey('bad'), bad)).rejects.toThrow(RangeError);
      }
    });
  });
}
