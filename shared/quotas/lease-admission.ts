// Invariant: a capped counter admits a click only against a lease taken from a counter shared by
// every worker (LeaseStore: Redis in production, memory when embedded), which never grants past
// the limit, so all workers together admit at most `limit` while the store keeps its counter.
// Admission is synchronous while the local lease lasts; a counter waits on the store only when
// its lease is used up (leases shrink near the limit: about 1/8 of what is left, at most
// MAX_LEASE), and refills before it runs out. While the store is unreachable a worker admits,
// over the whole outage, at most its share of what the durable count said was left when the
// outage began: that remainder over the fleet's live workers (liveWorkers(): the count last seen
// in the shared registry), so every worker of every host together admits at most the remainder.
// An uncapped counter's clicks are only added to the shared counter. A lease left unused for a whole flush interval goes back to
// the store. One counter per key K: an organisation's month today; a link's lifetime next.
import type { Lease } from './click-counter-store.ts';

/** The shared counters behind LeaseAdmission; see click-counter-store.ts for the atomic semantics. */
export interface LeaseStore<K> {
  lease(key: K, floor: number, want: number, limit: number): Promise<Lease>;
  /** Adds `deltas` (negative values return unused leases); resolves with each counter after it. */
  add(deltas: readonly { key: K; delta: number }[]): Promise<number[]>;
}

/** What a lease needs from the durable count: the floor the store's counter is raised to, and the clicks counted but not yet durable. */
export interface DurableCount {
  floor(): Promise<number>;
  unflushed(): number;
}

export interface LeaseEntry<K> {
  readonly key: K;
  capped: boolean;
  /** Delta not yet added to the store (uncapped clicks; negative: unused lease returned). */
  pendingStore: number;
  /** Clicks this worker may still admit that the store has already counted. */
  storeLease: number;
  /** Clicks admitted on a local estimate while the store was unreachable (never returned). */
  localLease: number;
  /** Since the store became unreachable for this counter: what was left then, and the local grants since. */
  outage: { left: number; granted: number } | null;
  /** Last counter value seen from the store. */
  total: number;
  lastWant: number;
  exhaustedUntilMs: number;
  leasing: Promise<void> | null;
  /** Requests waiting for a lease right now. */
  waiting: number;
  activeSinceFlush: boolean;
}

export interface LeaseAdmissionOptions<K> {
  store: LeaseStore<K>;
  /** The fleet's live workers (at least 1), as last seen; divides what is left while the store is down. */
  liveWorkers: () => number;
  onError?: (err: unknown) => void;
}

const MAX_LEASE = 256;
const EXHAUSTED_RECHECK_MS = 1_000;
const MAX_SETTLE_ROUNDS = 100;

export class LeaseAdmission<K> {
  readonly #o: LeaseAdmissionOptions<K>;
  readonly #entries = new Set<LeaseEntry<K>>();

  constructor(options: LeaseAdmissionOptions<K>) {
    this.#o = options;
  }

  /** A new counter for `key`; forget() it once it is idle. */
  entry(key: K, capped: boolean): LeaseEntry<K> {
    const e: LeaseEntry<K> = {
      key,
      capped,
      pendingStore: 0,
      storeLease: 0,
      localLease: 0,
      outage: null,
      total: 0,
      lastWant: 1,
      exhaustedUntilMs: 0,
      leasing: null,
      waiting: 0,
      activeSinceFlush: false,
    };
    this.#entries.add(e);
    return e;
  }

  forget(e: LeaseEntry<K>): void {
    this.#entries.delete(e);
  }

  /** The cap came or went (a plan change): a lease held goes back to the store at the next flush. */
  recap(e: LeaseEntry<K>, capped: boolean): void {
    if (e.capped === capped) return;
    e.capped = capped;
    e.pendingStore -= e.storeLease;
    e.storeLease = 0;
    e.localLease = 0;
    e.exhaustedUntilMs = 0;
  }

  /** One more click may be admitted now. */
  allows(e: LeaseEntry<K>): boolean {
    return !e.capped || e.storeLease + e.localLease > 0;
  }

  /** allows() answers without waiting on the store: a lease in hand, or the store said exhausted a moment ago. */
  answersNow(e: LeaseEntry<K>, nowMs: number): boolean {
    return this.allows(e) || nowMs < e.exhaustedUntilMs;
  }

  /** Takes leases until answersNow() holds (granted, or the store says exhausted). */
  async settle(e: LeaseEntry<K>, limit: number, durable: DurableCount): Promise<void> {
    for (let i = 0; i < MAX_SETTLE_ROUNDS && !this.answersNow(e, Date.now()); i++) await this.#prepare(e, limit, durable, Date.now());
  }

  /** Counts one served click: a unit of the lease (refilled before it runs out), or, uncapped, one more for the store. */
  use(e: LeaseEntry<K>, nowMs: number, limit: number, durable: DurableCount): void {
    e.activeSinceFlush = true;
    if (!e.capped) {
      e.pendingStore++;
      return;
    }
    if (e.storeLease > 0) e.storeLease--;
    else if (e.localLease > 0) e.localLease--;
    // Refill before the lease runs out, so steady traffic never waits for the store.
    if (e.leasing === null && e.storeLease + e.localLease <= e.lastWant / 2 && nowMs >= e.exhaustedUntilMs) {
      void this.#prepare(e, limit, durable, nowMs).catch((err: unknown) => this.#o.onError?.(err));
    }
  }

  /** Nothing held and nothing owed to the store: the entry may be forgotten. */
  isEmpty(e: LeaseEntry<K>): boolean {
    return e.pendingStore === 0 && e.storeLease === 0 && e.leasing === null;
  }

  /** Once per flush interval, before flush(): the leases of counters idle for the whole interval go back to the store. */
  returnIdle(): void {
    for (const e of this.#entries) {
      if (e.capped && !e.activeSinceFlush && e.storeLease > 0 && e.leasing === null) {
        // Idle for a whole interval: hand the unused lease back to the other workers.
        e.pendingStore -= e.storeLease;
        e.storeLease = 0;
      }
      if (!e.activeSinceFlush) e.localLease = 0;
      e.activeSinceFlush = false;
    }
  }

  /** Adds what each counter owes the store (clicks, returned leases); true when there was any. */
  async flush(): Promise<boolean> {
    const items: { e: LeaseEntry<K>; delta: number }[] = [];
    for (const e of this.#entries) if (e.pendingStore !== 0) items.push({ e, delta: e.pendingStore });
    if (items.length === 0) return false;
    for (const { e, delta } of items) e.pendingStore -= delta;
    try {
      const totals = await this.#o.store.add(items.map(({ e, delta }) => ({ key: e.key, delta })));
      items.forEach(({ e }, i) => {
        const t = totals[i];
        if (t !== undefined) e.total = t;
      });
    } catch (err) {
      for (const { e, delta } of items) e.pendingStore += delta;
      this.#o.onError?.(err);
    }
    return true;
  }

  /** Unused leases go back at the next flush (close() of the owner). */
  releaseAll(): void {
    for (const e of this.#entries) e.activeSinceFlush = false;
  }

  /** Takes a lease from the store (one in flight per counter). */
  #prepare(e: LeaseEntry<K>, limit: number, durable: DurableCount, nowMs: number): Promise<void> {
    if (!e.capped) return Promise.resolve();
    e.waiting++;
    e.leasing ??= this.#lease(e, limit, durable, nowMs).finally(() => {
      e.leasing = null;
    });
    return e.leasing.finally(() => {
      e.waiting--;
    });
  }

  async #lease(e: LeaseEntry<K>, limit: number, durable: DurableCount, nowMs: number): Promise<void> {
    const floor = await durable.floor();
    const known = Math.max(e.total, floor);
    // A block of about 1/8 of what is left (so leases shrink near the limit), at least as many
    // as requests are waiting here.
    const want = Math.max(1, Math.min(MAX_LEASE, Math.max(Math.floor((limit - known) / 8), e.waiting)));
    e.lastWant = want;
    try {
      const lease = await this.#o.store.lease(e.key, floor, want, limit);
      e.total = lease.total;
      e.outage = null;
      if (e.capped) e.storeLease += lease.granted;
      else e.pendingStore -= lease.granted; // the cap went meanwhile: give it back
      if (lease.granted === 0) e.exhaustedUntilMs = nowMs + EXHAUSTED_RECHECK_MS;
    } catch (err) {
      // Store unreachable: admit this worker's share of what the durable count said was left
      // when the outage began, less what it granted itself since.
      this.#o.onError?.(err);
      e.outage ??= { left: limit - floor - durable.unflushed(), granted: 0 };
      const share = Math.floor(e.outage.left / Math.max(1, this.#o.liveWorkers()));
      const granted = Math.max(0, Math.min(want, share - e.outage.granted));
      e.outage.granted += granted;
      e.localLease += granted;
      if (granted === 0) e.exhaustedUntilMs = nowMs + EXHAUSTED_RECHECK_MS;
    }
  }
}
