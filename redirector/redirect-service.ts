// Invariant: the redirect use case, without a transport. answer() admits, decides and records in
// one synchronous block: the quota admission (once), the pure decision, and (for a served click
// or preview) exactly one RawHit handed to the sink and, for a click, one click recorded, so an
// admission is never promised to two requests and every counted click is one the caller is about
// to write. A fully cached request whose admission is known is answered at once, without I/O;
// otherwise the one pending load of the entities (and then of a quota lease) is awaited first, and
// a request whose client hung up meanwhile is neither decided nor recorded. HEAD requests and
// error answers hand off and count nothing. A hit the sink refuses is reported, never thrown.
import type { HitSink } from '../shared/analytics/events/raw-hit.ts';
import type { ClickQuota } from '../shared/quotas/click-quota.ts';
import { decideRedirect, quotaApplies, type Decision, type DecisionInput, type Route } from '../shared/redirects/decide-redirect.ts';
import type { RedirectorMetrics } from './metrics.ts';
import { buildRawHit } from './raw-hit-builder.ts';
import type { RedirectResolver } from './redirect-resolver.ts';
import type { RequestFacts } from '../shared/redirects/request-facts.ts';

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
   * The decision for `route`, now when every entity is cached and the admission known; otherwise a
   * promise of it, decided when the loads are done (null when the client hung up meanwhile:
   * nothing was admitted or recorded). A load that fails (Postgres down) rejects that promise.
   */
  answer(route: Route, facts: RequestFacts, nowMs: number): Decision | Promise<Decision | null> {
    const input = this.#d.resolver.resolve(route, facts.host);
    if (input instanceof Promise) return this.#answerLoaded(input, facts);
    const org = input.org;
    const admits = org !== null && quotaApplies(input, facts);
    if (admits) {
      const lease = this.#d.quota.whenAdmissible(org, nowMs);
      if (lease !== null) return this.#answerLeased(lease, input, facts);
    }
    return this.#decide(input, facts, nowMs, admits);
  }

  /** The answer to a path that is not a short code: the 404 an unknown code gets. */
  answerMissing(path: string, facts: RequestFacts, nowMs: number): Decision {
    return this.#decide(this.#d.resolver.absent({ kind: 'visit', shortCode: path }), facts, nowMs, false);
  }

  async #answerLoaded(loading: Promise<DecisionInput>, facts: RequestFacts): Promise<Decision | null> {
    const input = await loading;
    const org = input.org;
    const admits = org !== null && quotaApplies(input, facts);
    if (admits) await this.#d.quota.whenAdmissible(org, Date.now());
    return facts.aborted === true ? null : this.#decide(input, facts, Date.now(), admits);
  }

  async #answerLeased(lease: Promise<void>, input: DecisionInput, facts: RequestFacts): Promise<Decision | null> {
    await lease;
    return facts.aborted === true ? null : this.#decide(input, facts, Date.now(), true);
  }

  /** Admits (when `admits`: input.org is set and the quota applies), decides and records. */
  #decide(input: DecisionInput, facts: RequestFacts, nowMs: number, admits: boolean): Decision {
    const { quota, metrics } = this.#d;
    const org = input.org;
    if (admits && org !== null) input.quota = quota.admit(org, nowMs);
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
