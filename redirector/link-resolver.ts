// Invariant: the redirector reads links, organisations, apps and custom domains only through
// these four tiered caches, and every invalidation on the bus evicts exactly the key it names
// (Redis entry first, then the worker's LRU), within the bus's delivery time. Without Redis
// (embedded mode) there is no Redis tier. With LINK_CACHE_ENTRIES=0 only the link LRU is off
// (the other three are small and stay in process). Misses of one event-loop turn share one
// Postgres query per kind.
import type { MobileApp } from '../shared/apps/mobile-app-repository.ts';
import { findAppsByMobileAppIds } from '../shared/apps/mobile-app-repository.ts';
import type { Invalidation, InvalidationBus } from '../shared/bus/invalidation-bus.ts';
import { BatchLoader } from '../shared/cache/batch-loader.ts';
import type { RedisCacheTier } from '../shared/cache/redis-cache-tier.ts';
import { TieredCache, type CacheTier } from '../shared/cache/tiered-cache.ts';
import type { Sql } from '../shared/db/database.ts';
import { findActiveDomainsByHosts, type Domain } from '../shared/domains/domain-repository.ts';
import { buildLink, linkSize, type Link } from '../shared/links/link.ts';
import { findLinksByCodes } from '../shared/links/link-repository.ts';
import type { Organization } from '../shared/orgs/organization.ts';
import { findOrganizationsByIds } from '../shared/orgs/org-repository.ts';
import type { EntityKind } from './entity-kinds.ts';

export interface LinkResolverOptions {
  sql: Sql;
  redis: RedisCacheTier | null;
  linkCacheEntries: number;
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
const LINK_CACHE_BYTES = 256 * 1024 * 1024;

/** JSON read back from the Redis tier, which only this code writes. */
const asIs = <T>(json: unknown): T => json as T;

export class LinkResolver {
  readonly links: TieredCache<Link>;
  readonly orgs: TieredCache<Organization>;
  readonly apps: TieredCache<MobileApp>;
  readonly domains: TieredCache<Domain>;
  readonly #onError: (err: unknown) => void;
  #unsubscribe: (() => Promise<void>) | null = null;

  constructor(o: LinkResolverOptions) {
    this.#onError = o.onError;
    const common = {
      redis: o.redis,
      lruTtlMs: TTL.lru,
      negativeLruTtlMs: TTL.negativeLru,
      redisTtlMs: TTL.redis,
      negativeRedisTtlMs: TTL.negativeRedis,
      onError: o.onError,
    };
    const links = new BatchLoader((codes) => findLinksByCodes(o.sql, codes));
    const orgs = new BatchLoader((ids) => findOrganizationsByIds(o.sql, ids));
    const apps = new BatchLoader((ids) => findAppsByMobileAppIds(o.sql, ids));
    const domains = new BatchLoader((hosts) => findActiveDomainsByHosts(o.sql, hosts));
    this.links = new TieredCache<Link>({
      ...common,
      kind: 'link',
      hits: o.hits('link'),
      lruEntries: o.linkCacheEntries,
      lruMaxBytes: LINK_CACHE_BYTES,
      sizeOf: linkSize,
      load: (code) => links.load(code),
      // Rebuilt field by field, so cached links share one shape whichever tier they came from.
      revive: (json) => buildLink(asIs<Link>(json)),
    });
    this.orgs = new TieredCache<Organization>({ ...common, kind: 'org', hits: o.hits('org'), lruEntries: SMALL_CACHE_ENTRIES, load: (id) => orgs.load(id), revive: asIs });
    this.apps = new TieredCache<MobileApp>({ ...common, kind: 'app', hits: o.hits('app'), lruEntries: SMALL_CACHE_ENTRIES, load: (id) => apps.load(id), revive: asIs });
    this.domains = new TieredCache<Domain>({ ...common, kind: 'domain', hits: o.hits('domain'), lruEntries: SMALL_CACHE_ENTRIES, load: (host) => domains.load(host), revive: asIs });
  }

  async subscribe(bus: InvalidationBus): Promise<void> {
    this.#unsubscribe = await bus.subscribe((message) => {
      this.invalidate(message).catch(this.#onError);
    });
  }

  async unsubscribe(): Promise<void> {
    const u = this.#unsubscribe;
    this.#unsubscribe = null;
    if (u) await u();
  }

  invalidate(message: Invalidation): Promise<void> {
    switch (message.kind) {
      case 'link':
        return this.links.invalidate(message.shortCode);
      case 'org':
        return this.orgs.invalidate(message.orgId);
      case 'app':
        return this.apps.invalidate(message.mobileAppId);
      case 'domain':
        return this.domains.invalidate(message.host);
    }
  }
}
