// Invariant: the redirector reads links, organisations, apps and custom domains only through
// these four tiered caches, and every invalidation on the bus evicts exactly the key it names
// (Redis entry first, then the worker's LRU), within the bus's delivery time. Without Redis
// (embedded mode) there is no Redis tier. With LINK_CACHE_ENTRIES=0 only the link LRU is off
// (the other three are small and stay in process).
import type { Sql } from '../shared/db/database.ts';
import type { Invalidation, InvalidationBus } from '../shared/bus/invalidation-bus.ts';
import {
  hydrateLink,
  hydrateOrg,
  linkRecordSize,
  type AppRecord,
  type DomainRecord,
  type EntityKind,
  type LinkData,
  type LinkRecord,
  type OrgData,
  type OrgRecord,
} from './cached-entities.ts';
import { BatchLoader } from '../shared/cache/batch-loader.ts';
import { loadApps, loadDomains, loadLinks, loadOrgs } from './entity-loaders.ts';
import type { RedisCacheTier } from '../shared/cache/redis-cache-tier.ts';
import { TieredCache, type CacheTier } from '../shared/cache/tiered-cache.ts';

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

const identity = <T>(v: T): T => v;

export class LinkResolver {
  readonly links: TieredCache<LinkData, LinkRecord>;
  readonly orgs: TieredCache<OrgData, OrgRecord>;
  readonly apps: TieredCache<AppRecord, AppRecord>;
  readonly domains: TieredCache<DomainRecord, DomainRecord>;
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
    // Misses of one event-loop turn share one query per kind.
    const links = new BatchLoader((codes) => loadLinks(o.sql, codes));
    const orgs = new BatchLoader((ids) => loadOrgs(o.sql, ids));
    const apps = new BatchLoader((ids) => loadApps(o.sql, ids));
    const domains = new BatchLoader((hosts) => loadDomains(o.sql, hosts));
    this.links = new TieredCache<LinkData, LinkRecord>({
      ...common,
      kind: 'link',
      hits: o.hits('link'),
      lruEntries: o.linkCacheEntries,
      lruMaxBytes: LINK_CACHE_BYTES,
      sizeOf: linkRecordSize,
      load: (code) => links.load(code),
      hydrate: hydrateLink,
    });
    this.orgs = new TieredCache<OrgData, OrgRecord>({ ...common, kind: 'org', hits: o.hits('org'), lruEntries: SMALL_CACHE_ENTRIES, load: (id) => orgs.load(id), hydrate: hydrateOrg });
    this.apps = new TieredCache<AppRecord, AppRecord>({ ...common, kind: 'app', hits: o.hits('app'), lruEntries: SMALL_CACHE_ENTRIES, load: (id) => apps.load(id), hydrate: identity });
    this.domains = new TieredCache<DomainRecord, DomainRecord>({
      ...common,
      kind: 'domain',
      hits: o.hits('domain'),
      lruEntries: SMALL_CACHE_ENTRIES,
      load: (host) => domains.load(host),
      hydrate: identity,
    });
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
