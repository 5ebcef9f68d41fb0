// Invariant: the one map from an Invalidation to the tiered-cache entry it names (kind and id),
// used by the redirector's caches and by the outbox relay's purge of the shared tier alike. A
// custom domain has no tiered entry: the domain directory reloads it instead.
import type { Invalidation } from '../bus/invalidation-bus.ts';

export type CachedKind = 'link' | 'org' | 'app';

export interface CachedEntry {
  kind: CachedKind;
  id: string;
}

export function cachedEntryOf(message: Invalidation): CachedEntry | null {
  switch (message.kind) {
    case 'link':
      return { kind: 'link', id: message.shortCode };
    case 'org':
      return { kind: 'org', id: message.orgId };
    case 'app':
      return { kind: 'app', id: message.mobileAppId };
    case 'domain':
      return null;
  }
}
