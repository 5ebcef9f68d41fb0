// Invariant: a batch's enrichment runs at most SLICE_MS per event-loop turn (the clock is read
// every CHECK_EVERY items), then gives the loop back with setImmediate, so a redirector sharing the
// process answers between slices however many new values a batch brings.

/** Work done per event-loop turn at most (ms), checked every few items. */
const SLICE_MS = 0.5;
const CHECK_EVERY = 16;

export class TurnSlices {
  #start = performance.now();

  /** True when item `i`'s turn has used up its slice: await next() before going on. */
  due(i: number): boolean {
    return i % CHECK_EVERY === CHECK_EVERY - 1 && performance.now() - this.#start >= SLICE_MS;
  }

  /** The next event-loop turn, with a fresh slice. */
  async next(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.#start = performance.now();
  }
}
