// Invariant: the redirect use case, without a transport. An answer is decided and accounted in one
// synchronous block: the quota admission, the pure decision, and (for a served click or preview)
// exactly one RawHit handed to the sink and, for a click, one click recorded, so an admission is
// never promised to two requests and every counted click is one the caller is about to write.
// HEAD requests and error answers hand off and count nothing. answerNow() answers a fully cached,
// already admitted request without I/O; otherwise it returns the one pending load of the entities
// and the quota lease (never started twice, never dropped), and answerPrepared() decides. A hit the sink refuses is reported, never thrown.
import type { HitSink } from '../shared/analytics/events/raw-hit.ts';
import type { ClickQuota } from '../shared/quotas/click-quota.ts';
import { decideRedirect, quotaApplies, type Decision, type DecisionInput, type Route } from './decide-redirect.ts';
import type { RedirectorMetrics } from './metrics.ts';
import { buildRawHit } from './raw-hit-builder.ts';
import type { RedirectResolver } from './redirect-resolver.ts';
import type { RequestFacts } from './request-facts.ts';

export interface RedirectServiceDeps {
  resolver: RedirectResolver;
  quota: ClickQuota;
  hitSink: HitSink;
  metrics: RedirectorMetrics;
  onError: (err: unknown) => void;
}

export class RedirectService {
  readonly #d: RedirectServiceDeps;

  constructor(deps: RedirectServiceDeps) {
    this.#d = deps;
  }

  /**
   * The decision now when every entity is cached and the admission known; otherwise the pending
   * preparation (entities loaded, then a lease when the quota applies), to be answered with
   * answerPrepared(). The pending load is handed over, never dropped: a load that fails (Postgres
   * down) rejects that promise, which the caller answers.
   */
  answerNow(route: Route, facts: RequestFacts, nowMs: number): Decision | Promise<DecisionInput> {
    const input = this.#d.resolver.resolve(route, facts.host);
    if (input instanceof Promise) return this.#settled(input, facts);
    return this.#decide(input, facts, nowMs, false) ?? this.#settled(Promise.resolve(input), facts);
  }

  /** The loaded input, after (when the quota applies) a lease. */
  async #settled(loading: Promise<DecisionInput>, facts: RequestFacts): Promise<DecisionInput> {
    const input = await loading;
    const org = input.org;
    if (org !== null && quotaApplies(input, facts) && this.#d.quota.admit(org, Date.now()) === undefined) await this.#d.quota.settle(org);
    return input;
  }

  /** The answer to a path that is not a short code: the 404 an unknown code gets. */
  answerMissing(path: string, facts: RequestFacts, nowMs: number): Decision {
    return this.#decide(this.#d.resolver.absent({ kind: 'visit', shortCode: path }), facts, nowMs, true) as Decision;
  }

  /** The decision after prepare(); call it in the block that writes the answer. */
  answerPrepared(input: DecisionInput, facts: RequestFacts, nowMs: number): Decision {
    return this.#decide(input, facts, nowMs, true) as Decision;
  }

  #decide(input: DecisionInput, facts: RequestFacts, nowMs: number, settled: boolean): Decision | undefined {
    const { quota, metrics } = this.#d;
    const org = input.org;
    if (org !== null && quotaApplies(input, facts)) {
      const admission = settled ? quota.admit(org, nowMs, true) : quota.admit(org, nowMs);
      if (admission === undefined) return undefined;
      input.quota = admission;
    }
    const decision = decideRedirect(input, facts, nowMs);
    if (decision.kind !== 'answer') return decision;
    metrics.request(decision.outcome);
    const link = input.link;
    if (decision.hit !== null && link !== null) {
      try {
        this.#d.hitSink.push(buildRawHit(link, facts, decision.hit, nowMs));
        metrics.hitRecorded();
      } catch (err) {
        this.#d.onError(err);
      }
      if (decision.hit.eventType === 'CLICK' && org !== null) quota.record(org, nowMs);
    }
    return decision;
  }
}
