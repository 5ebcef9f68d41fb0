// Invariant: every write to links, apps, domains or organisations publishes one Invalidation
// after its transaction commits; every subscriber (each redirector worker) evicts what the
// message names. Delivery is at-most-once, so caches also carry a TTL as a safety net.

export type Invalidation =
  | { kind: 'link'; shortCode: string }
  | { kind: 'org'; orgId: string }
  | { kind: 'app'; mobileAppId: string }
  | { kind: 'domain'; host: string };

export type InvalidationHandler = (message: Invalidation) => void;

/** Called when the bus may have missed messages (its connection came back): forget what is cached. */
export type ResyncHandler = () => void;

export interface InvalidationBus {
  publish(message: Invalidation): Promise<void>;
  /**
   * Resolves once the subscription is live; returns an unsubscribe function. `onResync` is called
   * whenever the transport reconnected after losing its connection, since messages published in
   * between never arrive (the outbox relay republishes them, but a subscriber that reconnects
   * later than that publish would still miss them).
   */
  subscribe(handler: InvalidationHandler, onResync?: ResyncHandler): Promise<() => Promise<void>>;
  close(): Promise<void>;
}
