// Invariant: the redirector reads links, organisations and apps only through these three tiered
// caches (LRU → Redis → the entity source, Postgres; each bounded by entries and bytes) and custom domains only from
// the in-memory DomainDirectory (every active domain, so an unknown Host costs no query), and
// resolve() is the one place that turns a route and a Host into the decision's entities (the
// link's organisation always comes with a link the host serves, so its suspension is known to the
// decision), with one host rule: a registered custom domain serves only its organisation's links,
// any other host every link. It answers synchronously, with no I/O, when every entity it needs is
// a fresh LRU hit, and otherwise loads what is missing (entities that do not depend on each other
// in parallel) and resolves again: the steps are written once. Every invalidation evicts exactly
// the key it names (Redis entry first, then the LRU; a domain's host is re-read) within the bus's
// delivery time. Without Redis (embedded mode) there is no Redis tier; with LINK_CACHE_ENTRIES=0
// only the link LRU is off. Misses of one event-loop turn share one source query per kind. An
// attempt that misses returns the misses it met (a list made only then), which are loaded and the
// attempt repeated: an answer from the LRU allocates nothing for them.
import type { MobileApp } from '../shared/apps/mobile-app-repository.ts';
import type { Invalidation, InvalidationBus } from '../shared/bus/invalidation-bus.ts';
import { BatchLoader } from '../shared/cache/batch-loader.ts';
import { cachedEntryOf, type CachedKind } from '../shared/cache/cached-entry.ts';
import type { SharedCacheTier } from '../shared/cache/shared-cache-tier.ts';
import { TieredCache, type CacheTier } from '../shared/cache/tiered-cache.ts';
import { DomainDirectory } from '../shared/domains/domain-directory.ts';
import type { Domain } from '../shared/domains/domain-repository.ts';
import { normalizeHost } from '../shared/domains/host-name.ts';
import { linkSize, reviveLink, type Link } from '../shared/links/link.ts';
import type { Organization } from '../shared/orgs/organization.ts';
import { hostServes, type DecisionInput, type Route } from '../shared/redirects/decide-redirect.ts';
import type { EntityKind } from './entity-kinds.ts';
import type { EntitySource } from './entity-source.ts';

export interface RedirectResolverOptions {
  entities: EntitySource;
  /** The shared Redis tier; null in embedded mode. */
  cacheTier: SharedCacheTier | null;
  linkCacheEntries: number;
  /** Byte budget of the in-process link cache (LINK_CACHE_MAX_BYTES). */
  linkCacheMaxBytes: number;
  /** Origin of the default smart links; its host, normalised, serves every link. */
  shortLinkBase: string;
  hits: (kind: EntityKind) => Record<CacheTier, number>;
  onError: (err: unknown) => void;
}

const SECOND = 1_000;
const TTL = {
  lru: 60 * SECOND,
  negativeLru: 10 * SECOND,
  redis: 120 * SECOND,
  negativeRedis: 30 * SECOND,
};
const SMALL_CACHE_ENTRIES = 50_000;
/** Byte budget of each of the organisation and app LRUs. */
const SMALL_CACHE_BYTES = 16 * 1024 * 1024;
/** The custom-domain directory is re-read in full this often, in case an invalidation was lost. */
const DOMAIN_REFRESH_MS = 60 * SECOND;
/** Approximate in-memory size of a cached organisation or app: its JSON text, two bytes a character. */
const jsonSize = (v: object): number => 2 * JSON.stringify(v).length;
const EMPTY_APPS: ReadonlyMap<string, MobileApp | null> = new Map();

/** JSON read back from the Redis tier, which only this code writes. */
const asIs = <T>(json: unknown): T => json as T;

type Entity = Link | Organization | MobileApp | Domain;
interface Miss {
  kind: EntityKind;
  id: string;
}
/** Entities loaded for one asynchronous resolution, by `${kind} ${id}`. */
type Loaded = Map<string, Entity | null>;

/** `misses` with one more; the list is made at the first miss. */
function noted(misses: Miss[] | null, kind: EntityKind, id: string): Miss[] {
  const list = misses ?? [];
  list.push({ kind, id });
  return list;
}

export class RedirectResolver {
  /** The kinds read through a TieredCache; custom domains are read from the DomainDirectory. */
  readonly #caches: { readonly [K in CachedKind]: TieredCache<Entity> };
  readonly #domains: DomainDirectory;
  readonly #defaultHost: string;
  readonly #shortLinkBase: string;
  readonly #onError: (err: unknown) => void;
  #unsubscribe: (() => Promise<void>) | null = null;

  constructor(o: RedirectResolverOptions) {
    this.#shortLinkBase = o.shortLinkBase;
    this.#defaultHost = normalizeHost(new URL(o.shortLinkBase).host);
    this.#onError = o.onError;
    const common = {
      redis: o.cacheTier,
      lruTtlMs: TTL.lru,
      negativeLruTtlMs: TTL.negativeLru,
      redisTtlMs: TTL.redis,
      negativeRedisTtlMs: TTL.negativeRedis,
      onError: o.onError,
    };
    const { entities } = o;
    const links = new BatchLoader((codes) => entities.links(codes));
    const orgs = new BatchLoader((ids) => entities.orgs(ids));
    const apps = new BatchLoader((ids) => entities.apps(ids));
    this.#domains = new DomainDirectory({
      source: entities.domains,
      refreshIntervalMs: DOMAIN_REFRESH_MS,
      onError: o.onError,
    });
    const small = { ...common, lruEntries: SMALL_CACHE_ENTRIES, lruMaxBytes: SMALL_CACHE_BYTES, sizeOf: jsonSize, revive: asIs<Entity> };
    this.#caches = {
      link: new TieredCache<Entity>({
        ...common,
        kind: 'link',
        hits: o.hits('link'),
        lruEntries: o.linkCacheEntries,
        lruMaxBytes: o.linkCacheMaxBytes,
        sizeOf: (v) => linkSize(v as Link),
        load: (code) => links.load(code),
        // Copied field by field, so cached links share one shape whichever tier they came from.
        revive: (json) => reviveLink(asIs<Link>(json)),
      }),
      org: new TieredCache<Entity>({ ...small, kind: 'org', hits: o.hits('org'), load: (id) => orgs.load(id) }),
      app: new TieredCache<Entity>({ ...small, kind: 'app', hits: o.hits('app'), load: (id) => apps.load(id) }),
    };
  }

  /**
   * The decision's entities for `route` asked on `host` (normalised): synchronously when every
   * one is a fresh LRU hit, else a promise. `quota` is left null for the caller to admit.
   */
  resolve(route: Route, host: string): DecisionInput | Promise<DecisionInput> {
    const attempt = this.#attempt(route, host, null);
    return Array.isArray(attempt) ? this.#resolveLoading(route, host, attempt) : attempt;
  }

  async #resolveLoading(route: Route, host: string, firstMisses: Miss[]): Promise<DecisionInput> {
    const loaded: Loaded = new Map();
    let misses = firstMisses;
    for (;;) {
      const values = await Promise.all(misses.map((m) => (m.kind === 'domain' ? this.#loadDomain(m.id) : this.#caches[m.kind].get(m.id))));
      for (const [i, m] of misses.entries()) loaded.set(`${m.kind} ${m.id}`, values[i] ?? null);
      const attempt = this.#attempt(route, host, loaded);
      if (!Array.isArray(attempt)) return attempt;
      misses = attempt;
    }
  }

  /** A custom domain once the directory is loaded (only before its first successful read). */
  async #loadDomain(host: string): Promise<Domain | null> {
    await this.#domains.whenLoaded();
    return this.#domains.peek(host) ?? null;
  }

  /** The input of a path that names no link at all (answered like an unknown code). */
  absent(route: Route): DecisionInput {
    return this.#input(route, null, null);
  }

  #input(route: Route, link: Link | null, hostDomain: Domain | null): DecisionInput {
    return {
      route,
      link,
      hostDomain,
      linkDomain: null,
      org: null,
      apps: EMPTY_APPS,
      quota: null,
      shortLinkBase: this.#shortLinkBase,
      country: null,
      clicksExhausted: false,
      passwordOk: false,
    };
  }

  /** One pass over the resolution steps: the input, or the entities neither loaded nor in the LRU. */
  #attempt(route: Route, host: string, loaded: Loaded | null): DecisionInput | Miss[] {
    let hostDomain: Domain | null = null;
    if (host !== this.#defaultHost && host !== '') {
      const d = this.#look<Domain>('domain', host, loaded);
      if (d === undefined) return noted(null, 'domain', host);
      hostDomain = d;
    }
    const link = this.#look<Link>('link', route.shortCode, loaded);
    if (link === undefined) return noted(null, 'link', route.shortCode);
    const input = this.#input(route, link, hostDomain);
    if (link === null || !hostServes(hostDomain, link)) return input;
    // The organisation (its suspension decides every answer, archived and QR included), the link's
    // domain and the apps depend only on the link: look them all up before giving up.
    let misses: Miss[] | null = null;
    const org = this.#look<Organization>('org', link.orgId, loaded);
    if (link.isActive && route.kind === 'qr' && link.domainHost !== null) {
      const d = this.#look<Domain>('domain', link.domainHost, loaded);
      if (d === undefined) misses = noted(misses, 'domain', link.domainHost);
      else input.linkDomain = d;
    }
    let apps = EMPTY_APPS;
    if (link.isActive && route.kind === 'visit' && link.deepLinks.length > 0) {
      const found = new Map<string, MobileApp | null>();
      for (const entry of link.deepLinks) {
        const app = this.#look<MobileApp>('app', entry.mobileAppId, loaded);
        if (app === undefined) misses = noted(misses, 'app', entry.mobileAppId);
        else found.set(entry.mobileAppId, app);
      }
      apps = found;
    }
    if (org === undefined) return noted(misses, 'org', link.orgId);
    if (misses !== null) return misses;
    input.org = org;
    input.apps = apps;
    return input;
  }

  /** The entity if known now (null: known absent), else undefined (a miss). */
  #look<T extends Entity>(kind: EntityKind, id: string, loaded: Loaded | null): T | null | undefined {
    if (loaded !== null) {
      const key = `${kind} ${id}`;
      if (loaded.has(key)) return loaded.get(key) as T | null;
    }
    return (kind === 'domain' ? this.#domains.peek(id) : this.#caches[kind].peek(id)) as T | null | undefined;
  }

  /**
   * Hears invalidations, then reads the custom-domain directory (a failed first read is logged and
   * retried; custom hosts wait for it meanwhile).
   */
  async subscribe(bus: InvalidationBus): Promise<void> {
    this.#unsubscribe = await bus.subscribe(
      (message) => {
        this.invalidate(message).catch(this.#onError);
      },
      () => this.clearLocal(),
    );
    await this.#domains.start().catch(this.#onError);
  }

  async unsubscribe(): Promise<void> {
    const u = this.#unsubscribe;
    this.#unsubscribe = null;
    this.#domains.stop();
    if (u) await u();
  }

  invalidate(message: Invalidation): Promise<void> {
    const entry = cachedEntryOf(message);
    if (entry !== null) return this.#caches[entry.kind].invalidate(entry.id);
    return message.kind === 'domain' ? this.#domains.reload(message.host) : Promise.resolve();
  }

  /** Drops every in-process entry (e.g. after the bus reconnected and messages may have been lost). */
  clearLocal(): void {
    for (const cache of Object.values(this.#caches)) cache.clearLocal();
    this.#domains.reloadAll().catch(() => undefined);
  }
}
