// Invariant: a hard-capped (FREE) organisation's click is admitted only against a lease taken
// from the shared counter store, which never grants past the monthly limit, so every worker of
// every host together serves at most `clicksPerMonth` clicks per period while the store keeps its
// counter. Admission is synchronous while the local lease lasts; a worker awaits the store only
// when its lease is used up (leases shrink near the limit, so the last clicks of a month cost a
// round trip each). Paid organisations are never blocked: their clicks are only counted. Served
// clicks reach usage_counters in one batched statement per flush interval.
// Overshoot bound: 0 while the store keeps its counter. If the Redis counter is lost mid-month it
// is re-seeded from usage_counters, which lags by at most one flush interval of served clicks;
// leases held at that moment (<= 256 per worker) are forgotten: overshoot <= workers x 256 +
// one flush interval of traffic. While the store is unreachable each worker admits at most
// 1/workersHint of what Postgres says is left, per lease attempt.
import type { Organization } from '../orgs/organization.ts';
import { isHardCapped } from '../orgs/plans.ts';
import { billingPeriod, type BillingPeriod } from './billing-period.ts';
import type { ClickCounterStore } from './click-counter-store.ts';
import type { QuotaView } from './quota-view.ts';
import type { UsageStore } from './usage-store.ts';

export interface ClickQuotaOptions {
  store: ClickCounterStore;
  usage: UsageStore;
  /** How many workers share one host's traffic; bounds local admissions while the store is down. */
  workersHint?: number;
  flushIntervalMs?: number;
  onFlush?: (latencyMs: number) => void;
  onError?: (err: unknown) => void;
}

interface PeriodState {
  orgId: string;
  periodStart: string;
  periodEnd: number;
  hardCapped: boolean;
  /** Served clicks not yet added to usage_counters. */
  pendingDurable: number;
  /** Delta not yet added to the counter store (paid clicks; negative: unused lease returned). */
  pendingStore: number;
  /** Clicks this worker may still admit that the store has already counted. */
  storeLease: number;
  /** Clicks admitted on a local estimate while the store was unreachable (never returned). */
  localLease: number;
  /** Last counter value seen from the store. */
  total: number;
  /** Last durable count seen from Postgres; null until read. */
  durable: number | null;
  lastWant: number;
  exhaustedUntilMs: number;
  leasing: Promise<void> | null;
  /** Requests waiting for a lease right now. */
  waiting: number;
  activeSinceFlush: boolean;
  lastUseMs: number;
}

const ALLOWED: QuotaView = Object.freeze({ allowed: true as const });
const MAX_LEASE = 256;
const EXHAUSTED_RECHECK_MS = 1_000;
const IDLE_DROP_MS = 300_000;
const MAX_SETTLE_ROUNDS = 100;

export class ClickQuota {
  readonly #o: Required<Omit<ClickQuotaOptions, 'onFlush' | 'onError'>> & Pick<ClickQuotaOptions, 'onFlush' | 'onError'>;
  readonly #states = new Map<string, PeriodState>();
  /** The current period's states by organisation id (hot-path index into #states). */
  readonly #current = new Map<string, PeriodState>();
  #period: BillingPeriod = billingPeriod(Date.now());
  #timer: NodeJS.Timeout | null = null;
  #flushing: Promise<void> | null = null;

  constructor(options: ClickQuotaOptions) {
    this.#o = { workersHint: 1, flushIntervalMs: 1_000, ...options };
  }

  start(): void {
    this.#timer ??= setInterval(() => void this.flush(), this.#o.flushIntervalMs);
    this.#timer.unref();
  }

  /**
   * Null when admit() answers now without I/O (a paid plan, a lease in hand, or the store said
   * exhausted a moment ago); otherwise the lease being taken, after which admit() answers.
   */
  whenAdmissible(org: Organization, nowMs: number): Promise<void> | null {
    return this.#admissible(org, nowMs) ? null : this.#settle(org);
  }

  /**
   * The admission of one more click of `org` now: allowed on a paid plan or against a lease in
   * hand, else exhausted (an organisation still without a lease after whenAdmissible() counts as
   * exhausted). An allowed admission must be followed by record() in the same synchronous block,
   * so one lease unit is never promised to two requests.
   */
  admit(org: Organization, nowMs: number): QuotaView {
    if (!isHardCapped(org.plan)) return ALLOWED;
    const s = this.#state(org, nowMs);
    return s.storeLease + s.localLease > 0 ? ALLOWED : this.#exhausted(s, org);
  }

  #admissible(org: Organization, nowMs: number): boolean {
    if (!isHardCapped(org.plan)) return true;
    const s = this.#state(org, nowMs);
    return s.storeLease + s.localLease > 0 || nowMs < s.exhaustedUntilMs;
  }

  /** Takes leases until admit() answers without I/O (granted, or the store says exhausted). */
  async #settle(org: Organization): Promise<void> {
    for (let i = 0; i < MAX_SETTLE_ROUNDS && !this.#admissible(org, Date.now()); i++) await this.#prepare(org, Date.now());
  }

  /** Takes a lease from the store (one in flight per organisation and period). */
  #prepare(org: Organization, nowMs: number): Promise<void> {
    if (!isHardCapped(org.plan)) return Promise.resolve();
    const s = this.#state(org, nowMs);
    s.waiting++;
    s.leasing ??= this.#lease(s, org, nowMs).finally(() => {
      s.leasing = null;
    });
    return s.leasing.finally(() => {
      s.waiting--;
    });
  }

  /** Counts one served click. Call synchronously after an allowed admit(). */
  record(org: Organization, nowMs: number): void {
    const s = this.#state(org, nowMs);
    s.pendingDurable++;
    s.activeSinceFlush = true;
    s.lastUseMs = nowMs;
    if (!isHardCapped(org.plan)) {
      s.pendingStore++;
      return;
    }
    if (s.storeLease > 0) s.storeLease--;
    else if (s.localLease > 0) s.localLease--;
    // Refill before the lease runs out, so steady traffic never waits for the store.
    if (s.leasing === null && s.storeLease + s.localLease <= s.lastWant / 2 && nowMs >= s.exhaustedUntilMs) {
      void this.#prepare(org, nowMs).catch((err: unknown) => this.#o.onError?.(err));
    }
  }

  /** Writes pending counts to Postgres and the store and returns idle leases. Never rejects. */
  flush(): Promise<void> {
    this.#flushing ??= this.#flush().finally(() => {
      this.#flushing = null;
    });
    return this.#flushing;
  }

  async close(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    await this.#flushing;
    for (const s of this.#states.values()) s.activeSinceFlush = false; // return every lease
    await this.flush();
  }

  /** Clicks counted but not yet durable (all organisations). */
  get pendingClicks(): number {
    let n = 0;
    for (const s of this.#states.values()) n += s.pendingDurable;
    return n;
  }

  #state(org: Organization, nowMs: number): PeriodState {
    let p = this.#period;
    if (nowMs >= p.endMs || nowMs < p.startMs) {
      p = this.#period = billingPeriod(nowMs);
      this.#current.clear();
    }
    let s = this.#current.get(org.id);
    if (s === undefined) s = this.#states.get(`${org.id}|${p.periodStart}`);
    if (s === undefined) {
      s = {
        orgId: org.id,
        periodStart: p.periodStart,
        periodEnd: p.periodEnd,
        hardCapped: isHardCapped(org.plan),
        pendingDurable: 0,
        pendingStore: 0,
        storeLease: 0,
        localLease: 0,
        total: 0,
        durable: null,
        lastWant: 1,
        exhaustedUntilMs: 0,
        leasing: null,
        waiting: 0,
        activeSinceFlush: false,
        lastUseMs: nowMs,
      };
      this.#states.set(`${org.id}|${p.periodStart}`, s);
    }
    if (this.#current.get(org.id) !== s) this.#current.set(org.id, s);
    if (s.hardCapped !== isHardCapped(org.plan)) {
      // Plan changed: a lease held for a FREE plan goes back to the store at the next flush.
      s.hardCapped = isHardCapped(org.plan);
      s.pendingStore -= s.storeLease;
      s.storeLease = 0;
      s.localLease = 0;
      s.exhaustedUntilMs = 0;
    }
    return s;
  }

  #exhausted(s: PeriodState, org: Organization): QuotaView {
    return {
      allowed: false,
      currentClicks: Math.min(org.limits.clicksPerMonth, Math.max(s.total, s.durable ?? 0)),
      clicksLimit: org.limits.clicksPerMonth,
      periodEnd: s.periodEnd,
      plan: org.plan,
    };
  }

  async #lease(s: PeriodState, org: Organization, nowMs: number): Promise<void> {
    const limit = org.limits.clicksPerMonth;
    if (s.durable === null) {
      try {
        s.durable = await this.#o.usage.read(s.orgId, s.periodStart);
      } catch (err) {
        this.#o.onError?.(err);
      }
    }
    const floor = s.durable ?? 0;
    const known = Math.max(s.total, floor);
    // A block of about 1/8 of what is left (so leases shrink near the limit), at least as many
    // as requests are waiting here.
    const want = Math.max(1, Math.min(MAX_LEASE, Math.max(Math.floor((limit - known) / 8), s.waiting)));
    s.lastWant = want;
    try {
      const lease = await this.#o.store.lease(s.orgId, s.periodStart, floor, want, limit);
      s.total = lease.total;
      if (s.hardCapped) s.storeLease += lease.granted;
      else s.pendingStore -= lease.granted; // plan changed meanwhile: give it back
      if (lease.granted === 0) s.exhaustedUntilMs = nowMs + EXHAUSTED_RECHECK_MS;
    } catch (err) {
      // Store unreachable: admit this worker's share of what Postgres says is left.
      this.#o.onError?.(err);
      const unflushed = s.pendingDurable;
      const share = Math.floor((limit - floor - unflushed) / Math.max(1, this.#o.workersHint));
      const granted = Math.max(0, Math.min(want, share));
      s.localLease += granted;
      if (granted === 0) s.exhaustedUntilMs = nowMs + EXHAUSTED_RECHECK_MS;
    }
  }

  async #flush(): Promise<void> {
    const started = performance.now();
    const durable: { s: PeriodState; clicks: number }[] = [];
    const store: { s: PeriodState; delta: number }[] = [];
    const now = Date.now();
    for (const [key, s] of this.#states) {
      if (s.hardCapped && !s.activeSinceFlush && s.storeLease > 0 && s.leasing === null) {
        // Idle for a whole interval: hand the unused lease back to the other workers.
        s.pendingStore -= s.storeLease;
        s.storeLease = 0;
      }
      if (!s.activeSinceFlush) s.localLease = 0;
      s.activeSinceFlush = false;
      if (s.pendingDurable > 0) durable.push({ s, clicks: s.pendingDurable });
      if (s.pendingStore !== 0) store.push({ s, delta: s.pendingStore });
      if (
        s.pendingDurable === 0 &&
        s.pendingStore === 0 &&
        s.storeLease === 0 &&
        s.leasing === null &&
        (now - s.lastUseMs > IDLE_DROP_MS || now >= s.periodEnd * 1000)
      ) {
        this.#states.delete(key);
        if (this.#current.get(s.orgId) === s) this.#current.delete(s.orgId);
      }
    }
    if (durable.length === 0 && store.length === 0) return;
    await Promise.all([this.#flushDurable(durable), this.#flushStore(store)]);
    this.#o.onFlush?.(performance.now() - started);
  }

  async #flushDurable(items: { s: PeriodState; clicks: number }[]): Promise<void> {
    if (items.length === 0) return;
    for (const { s, clicks } of items) s.pendingDurable -= clicks;
    try {
      const totals = await this.#o.usage.add(items.map(({ s, clicks }) => ({ orgId: s.orgId, periodStart: s.periodStart, clicks })));
      const byKey = new Map(totals.map((t) => [`${t.orgId}|${t.periodStart}`, t.clicks]));
      for (const { s } of items) {
        const clicks = byKey.get(`${s.orgId}|${s.periodStart}`);
        if (clicks !== undefined) s.durable = clicks;
      }
    } catch (err) {
      for (const { s, clicks } of items) s.pendingDurable += clicks; // retried next flush
      this.#o.onError?.(err);
    }
  }

  async #flushStore(items: { s: PeriodState; delta: number }[]): Promise<void> {
    if (items.length === 0) return;
    for (const { s, delta } of items) s.pendingStore -= delta;
    try {
      const totals = await this.#o.store.add(items.map(({ s, delta }) => ({ orgId: s.orgId, periodStart: s.periodStart, delta })));
      items.forEach(({ s }, i) => {
        const t = totals[i];
        if (t !== undefined) s.total = t;
      });
    } catch (err) {
      for (const { s, delta } of items) s.pendingStore += delta;
      this.#o.onError?.(err);
    }
  }
}
