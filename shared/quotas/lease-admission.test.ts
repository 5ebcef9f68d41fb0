// Invariant: while the shared counter store is unreachable, the workers of a fleet together admit
// at most what the durable count said was left when the outage began, however their clicks and
// flushes interleave, with each worker's share taken from the fleet's live-worker count it last saw;
// once the store answers again, leases come from it as before.
import { describe, expect, it } from 'vitest';
import { LeaseAdmission, type DurableCount, type LeaseStore } from './lease-admission.ts';

const LIMIT = 1_000;
const LEFT = 100;

/** The usage table all workers flush to, and each worker's clicks not yet flushed. */
class Durable {
  flushed = LIMIT - LEFT;
  count(unflushed: () => number): DurableCount {
    return { floor: async () => this.flushed, unflushed };
  }
}

const down: LeaseStore<string> = {
  lease: () => Promise.reject(new Error('store unreachable')),
  add: () => Promise.reject(new Error('store unreachable')),
};

async function runFleet(workers: number, seen: number, rounds: number): Promise<number> {
  const durable = new Durable();
  const fleet = Array.from({ length: workers }, () => {
    const admission = new LeaseAdmission<string>({ store: down, liveWorkers: () => seen });
    const state = { unflushed: 0 };
    return { admission, entry: admission.entry('org:2026-11', true), state, durable: durable.count(() => state.unflushed) };
  });
  let admitted = 0;
  for (let round = 0; round < rounds; round++) {
    for (const w of fleet) {
      // A few clicks per worker per round, as traffic spreads over the fleet.
      for (let i = 0; i < 3; i++) {
        await w.admission.settle(w.entry, LIMIT, w.durable);
        if (!w.admission.allows(w.entry)) continue;
        w.admission.use(w.entry, Date.now(), LIMIT, w.durable);
        w.state.unflushed++;
        admitted++;
      }
    }
    // Each worker flushes its served clicks to the durable count now and then (round-robin).
    const flushing = fleet[round % workers];
    if (flushing) {
      durable.flushed += flushing.state.unflushed;
      flushing.state.unflushed = 0;
    }
    // Past the exhausted recheck: the workers ask again.
    for (const w of fleet) w.entry.exhaustedUntilMs = 0;
  }
  return admitted;
}

describe('LeaseAdmission while the store is unreachable', () => {
  it('six workers that saw six live workers admit at most what was left (100), and nearly all of it', async () => {
    const admitted = await runFleet(6, 6, 200);
    expect(admitted).toBeLessThanOrEqual(LEFT);
    expect(admitted).toBeGreaterThanOrEqual(6 * Math.floor(LEFT / 6));
  });

  it('workers that saw fewer live workers than there are overshoot: the count they saw is what bounds them', async () => {
    // Three hosts of two workers, each knowing only its own two (what one host alone can know).
    expect(await runFleet(6, 2, 200)).toBeGreaterThan(LEFT);
  });

  it('takes leases from the store again once it answers', async () => {
    let up = false;
    let counter = LIMIT - LEFT;
    const store: LeaseStore<string> = {
      lease: async (_k, floor, want, limit) => {
        if (!up) throw new Error('store unreachable');
        counter = Math.max(counter, floor);
        const granted = Math.max(0, Math.min(want, limit - counter));
        counter += granted;
        return { granted, total: counter };
      },
      add: async (deltas) => deltas.map(() => counter),
    };
    const admission = new LeaseAdmission<string>({ store, liveWorkers: () => 4 });
    const e = admission.entry('org:2026-11', true);
    const durable: DurableCount = { floor: async () => LIMIT - LEFT, unflushed: () => 0 };
    await admission.settle(e, LIMIT, durable);
    expect(e.localLease).toBe(12); // a first block: 1/8 of what is left (100), within the share (100 / 4)
    expect(e.outage).not.toBeNull();
    up = true;
    e.localLease = 0;
    e.exhaustedUntilMs = 0;
    await admission.settle(e, LIMIT, durable);
    expect(e.storeLease).toBeGreaterThan(0);
    expect(e.outage).toBeNull();
  });
});
