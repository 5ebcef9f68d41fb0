// Invariant: every write to links, apps, domains or organisations publishes one Invalidation
// after its transaction commits; every subscriber (each redirector worker) evicts what the
// message names. Delivery is at-most-once, so caches also carry a TTL as a safety net.

export type Invalidation =
  | { kind: 'link'; shortCode: string }
  | { kind: 'org'; orgId: string }
  | { kind: 'app'; mobileAppId: string }
  | { kind: 'domain'; host: string };

export type InvalidationHandler = (message: Invalidation) => void;

export interface InvalidationBus {
  publish(message: Invalidation): Promise<void>;
  /** Resolves once the subscription is live; returns an unsubscribe function. */
  subscribe(handler: InvalidationHandler): Promise<() => Promise<void>>;
  close(): Promise<void>;
}
