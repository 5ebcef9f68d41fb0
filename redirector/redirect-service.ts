// Invariant: the redirect use case, without a transport. answer() admits, decides and records in
// one synchronous block: the quota admission (once), the pure decision, and (for a served click
// or preview) exactly one RawHit handed to the sink and, for a click, one click recorded, so an
// admission is never promised to two requests and every counted click is one the caller is about
// to write. A fully cached request whose admission is known is answered at once, without I/O;
// otherwise the one pending load of the entities (and then of a quota lease) is awaited first, and
// a request whose client hung up meanwhile is neither decided nor recorded. HEAD requests and
// error answers hand off and count nothing. A hit the sink refuses is reported, never thrown.
// Link rules add three facts before the decision: the visitor's country (looked up only for a
// link with a country rule), whether the request carries the link's password cookie (only for a
// protected link), and whether the link's maxClicks are used up (a link seen exhausted by this
// worker is remembered per cached Link object, so a new maxClicks clears it). A click of a link
// with maxClicks is served only after its shared counter took it (LinkClickAdmission: the clicks
// of one event-loop turn in one atomic store call); refused, the request is decided again as expired, recording nothing.
// A bot's click (facts.bot: crawlers, scanners, libraries) is served and recorded but takes
// nothing: neither a maxClicks click nor a quota click.
import type { HitSink } from '../shared/analytics/events/raw-hit.ts';
import type { PasswordCookies } from '../shared/links/password-cookie.ts';
import type { Link } from '../shared/links/link.ts';
import type { ClickQuota } from '../shared/quotas/click-quota.ts';
import type { LinkClickAdmission } from '../shared/quotas/link-click-counter.ts';
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
  /** Per-link click admission (maxClicks): one store call per event-loop turn. */
  linkClicks: LinkClickAdmission;
  passwordCookies: PasswordCookies;
  /** The visitor's country, for links with a country rule; a promise only while its database opens. */
  countryOf(ip: string | null): string | null | Promise<string | null>;
}

/** Links this worker saw refused by their click counter (weak: a reloaded Link starts afresh). */
const exhausted = new WeakSet<Link>();

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

  /** The decision's entities for `route` (loaded when not cached), without deciding or recording anything. */
  entities(route: Route, facts: RequestFacts): Promise<DecisionInput> {
    return Promise.resolve(this.#d.resolver.resolve(route, facts.host));
  }

  /** The answer to a path that is not a short code: the 404 an unknown code gets. */
  answerMissing(path: string, facts: RequestFacts, nowMs: number): Decision {
    const input = this.#d.resolver.absent({ kind: 'visit', shortCode: path });
    return this.#record(decideRedirect(input, facts, nowMs), input, facts, nowMs);
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

  /** Gathers the link-rule facts (the country may have to be awaited), then admits, decides and records. */
  #decide(input: DecisionInput, facts: RequestFacts, nowMs: number, admits: boolean): Decision | Promise<Decision | null> {
    const link = input.link;
    if (link !== null && input.route.kind === 'visit') {
      if (link.passwordHash !== null) input.passwordOk = this.#d.passwordCookies.verify(link, facts.cookie ?? '', nowMs);
      if (link.maxClicks !== null) input.clicksExhausted = exhausted.has(link);
      if (link.compiledRules.needsCountry) {
        const country = this.#d.countryOf(facts.ip);
        if (country instanceof Promise) {
          return country.then((c) => {
            input.country = c;
            return facts.aborted === true ? null : this.#decideNow(input, facts, Date.now(), admits);
          });
        }
        input.country = country;
      }
    }
    return this.#decideNow(input, facts, nowMs, admits);
  }

  /** Admits (when `admits`: input.org is set and the quota applies), decides and records. */
  #decideNow(input: DecisionInput, facts: RequestFacts, nowMs: number, admits: boolean): Decision | Promise<Decision | null> {
    const org = input.org;
    if (admits && org !== null) input.quota = this.#d.quota.admit(org, nowMs);
    const decision = decideRedirect(input, facts, nowMs);
    const link = input.link;
    if (decision.kind === 'answer' && decision.hit?.eventType === 'CLICK' && link !== null && link.maxClicks !== null && facts.bot === null) {
      return this.#d.linkClicks.take(link.id, link.maxClicks).then((granted) => {
        if (granted) return this.#record(decision, input, facts, nowMs);
        exhausted.add(link);
        input.clicksExhausted = true;
        return this.#record(decideRedirect(input, facts, nowMs), input, facts, nowMs);
      });
    }
    return this.#record(decision, input, facts, nowMs);
  }

  /** Counts the answer and records its hit (a click also in the quota). */
  #record(decision: Decision, input: DecisionInput, facts: RequestFacts, nowMs: number): Decision {
    if (decision.kind !== 'answer') return decision;
    const { quota, metrics } = this.#d;
    const org = input.org;
    metrics.request(decision.outcome);
    const link = input.link;
    if (decision.hit !== null && link !== null) {
      try {
        this.#d.hitSink.push(buildRawHit(link, facts, decision.hit, org, nowMs));
        metrics.hitRecorded();
      } catch (err) {
        this.#d.onError(err);
      }
      if (decision.hit.eventType === 'CLICK' && org !== null && facts.bot === null) quota.record(org, nowMs);
    }
    return decision;
  }
}
