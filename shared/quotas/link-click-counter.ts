// Invariant: a link with maxClicks serves a click only after take() said yes, and take() says yes
// at most maxClicks times per link while the counter store keeps the link's counter: one atomic
// step checks and increments, so concurrent workers of every host never pass the limit together.
// count() reads the counter without changing it (the API's resolve). Adapters:
// memory-link-click-counter.ts (embedded: one process), redis-link-click-counter.ts (production).

export interface LinkClickCounter {
  /** Counts one click of the link if fewer than `max` were counted; false when the limit is reached. */
  take(linkId: string, max: number): Promise<boolean>;
  /** Clicks counted so far. */
  count(linkId: string): Promise<number>;
}
