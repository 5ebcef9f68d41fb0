// Invariant: the click quota of an organisation's billing period is a usage tally (every plan:
// every served click reaches usage_counters, one batched statement per flush interval) and a
// lease admission (hard-capped plans, FREE: a click is admitted only against a lease from the
// shared counter store, which never grants past the monthly limit, so every worker of every host
// together serves at most `clicksPerMonth` clicks per period while the store keeps its counter;
// paid plans are never blocked, their clicks only added to the counter). Admission is synchronous
// while the local lease lasts; whenAdmissible() names the lease to wait for when it is used up.
// Overshoot bound: 0 while the store keeps its counter. If the Redis counter is lost mid-month it
// is re-seeded from usage_counters, which lags by at most one flush interval of served clicks;
// leases held at that moment (<= 256 per worker) are forgotten: overshoot <= workers x 256 +
// one flush interval of traffic.
import type { Organization } from '../orgs/organization.ts';
import { isHardCapped } from '../orgs/plans.ts';
import { billingPeriod, type BillingPeriod } from './billing-period.ts';
import type { ClickCounterStore } from './click-counter-store.ts';
import { LeaseAdmission, type DurableCount, type LeaseEntry, type LeaseStore } from './lease-admission.ts';
import type { QuotaView } from './quota-view.ts';
import { UsageTally, type TallyEntry } from './usage-tally.ts';
import type { UsageStore } from './usage-store.ts';

export interface ClickQuotaOptions {
  store: ClickCounterStore;
  usage: UsageStore;
  /** The fleet's live workers, as last seen (default 1); bounds local admissions while the store is down. */
  liveWorkers?: () => number;
  flushIntervalMs?: number;
  onFlush?: (latencyMs: number) => void;
  onError?: (err: unknown) => void;
}

/** The shared counter of one organisation's billing period. */
interface OrgPeriod {
  orgId: string;
  periodStart: string;
}

/** One organisation's period: its tally and its lease counter. */
interface PeriodState {
  orgId: string;
  periodEnd: number;
  lastUseMs: number;
  tally: TallyEntry;
  lease: LeaseEntry<OrgPeriod>;
  /** The tally as the lease sees it (made once per state, not per request). */
  durable: DurableCount;
}

const ALLOWED: QuotaView = Object.freeze({ allowed: true as const });
const IDLE_DROP_MS = 300_000;

/** The ClickCounterStore as a LeaseStore keyed by organisation and period. */
function orgPeriodCounters(store: ClickCounterStore): LeaseStore<OrgPeriod> {
  return {
    lease: (k, floor, want, limit) => store.lease(k.orgId, k.periodStart, floor, want, limit),
    add: (deltas) => store.add(deltas.map(({ key, delta }) => ({ orgId: key.orgId, periodStart: key.periodStart, delta }))),
  };
}

export class ClickQuota {
  readonly #o: ClickQuotaOptions;
  readonly #tally: UsageTally;
  readonly #leases: LeaseAdmission<OrgPeriod>;
  readonly #states = new Map<string, PeriodState>();
  /** The current period's states by organisation id (hot-path index into #states). */
  readonly #current = new Map<string, PeriodState>();
  #period: BillingPeriod = billingPeriod(Date.now());
  #timer: NodeJS.Timeout | null = null;
  #flushing: Promise<void> | null = null;

  constructor(options: ClickQuotaOptions) {
    this.#o = options;
    this.#tally = new UsageTally(options.usage, options.onError);
    this.#leases = new LeaseAdmission({ store: orgPeriodCounters(options.store), liveWorkers: options.liveWorkers ?? (() => 1), onError: options.onError });
  }

  start(): void {
    this.#timer ??= setInterval(() => void this.flush(), this.#o.flushIntervalMs ?? 1_000);
    this.#timer.unref();
  }

  /**
   * Null when admit() answers now without I/O (a paid plan, a lease in hand, or the store said
   * exhausted a moment ago); otherwise the lease being taken, after which admit() answers.
   */
  whenAdmissible(org: Organization, nowMs: number): Promise<void> | null {
    if (!isHardCapped(org.plan)) return null;
    const s = this.#state(org, nowMs);
    return this.#leases.answersNow(s.lease, nowMs) ? null : this.#leases.settle(s.lease, org.limits.clicksPerMonth, s.durable);
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
    return this.#leases.allows(s.lease) ? ALLOWED : this.#exhausted(s, org);
  }

  /** Counts one served click. Call synchronously after an allowed admit(). */
  record(org: Organization, nowMs: number): void {
    const s = this.#state(org, nowMs);
    s.tally.pending++;
    s.lastUseMs = nowMs;
    this.#leases.use(s.lease, nowMs, org.limits.clicksPerMonth, s.durable);
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
    this.#leases.releaseAll(); // return every lease
    await this.flush();
  }

  /** Clicks counted but not yet durable (all organisations). */
  get pendingClicks(): number {
    return this.#tally.pendingClicks;
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
      const tally = this.#tally.entry(org.id, p.periodStart);
      const tallied = this.#tally;
      s = {
        orgId: org.id,
        periodEnd: p.periodEnd,
        lastUseMs: nowMs,
        tally,
        lease: this.#leases.entry({ orgId: org.id, periodStart: p.periodStart }, isHardCapped(org.plan)),
        durable: { floor: () => tallied.durable(tally), unflushed: () => tally.pending },
      };
      this.#states.set(`${org.id}|${p.periodStart}`, s);
    }
    if (this.#current.get(org.id) !== s) this.#current.set(org.id, s);
    // A plan change: a lease held for a FREE plan goes back to the store at the next flush.
    this.#leases.recap(s.lease, isHardCapped(org.plan));
    return s;
  }

  #exhausted(s: PeriodState, org: Organization): QuotaView {
    return {
      allowed: false,
      currentClicks: Math.min(org.limits.clicksPerMonth, Math.max(s.lease.total, s.tally.durable ?? 0)),
      clicksLimit: org.limits.clicksPerMonth,
      periodEnd: s.periodEnd,
      plan: org.plan,
    };
  }

  async #flush(): Promise<void> {
    const started = performance.now();
    const now = Date.now();
    this.#leases.returnIdle();
    // Dropped once idle (nothing pending, nothing held) for long, or once their period is over.
    for (const [key, s] of this.#states) {
      if (s.tally.pending !== 0 || !this.#leases.isEmpty(s.lease)) continue;
      if (now - s.lastUseMs <= IDLE_DROP_MS && now < s.periodEnd * 1000) continue;
      this.#states.delete(key);
      if (this.#current.get(s.orgId) === s) this.#current.delete(s.orgId);
      this.#tally.forget(s.tally);
      this.#leases.forget(s.lease);
    }
    const [durable, store] = await Promise.all([this.#tally.flush(), this.#leases.flush()]);
    if (durable || store) this.#o.onFlush?.(performance.now() - started);
  }
}
