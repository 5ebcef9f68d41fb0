// Invariant: a drain stops accepting connections first (closing the listen socket), waits a
// moment so every sibling worker closes its own, then marks the server draining (every answer
// from then on closes its connection), answers every request already received, and closes the
// connections still open once none has sent a request for DRAIN_QUIET_MS and none is being
// answered, or at the deadline. It runs once; later calls share it.

/** Connections with no request for this long during a drain are closed (ms). */
const DRAIN_QUIET_MS = 300;
/**
 * Between closing the listen socket and asking clients to reconnect (ms). The workers of a
 * cluster get SIGTERM together: this lets every sibling close its listen socket first, so a
 * reconnecting client never lands in the accept queue of a socket about to close (which the
 * kernel resets unless net.ipv4.tcp_migrate_req=1).
 */
const DRAIN_LISTEN_SETTLE_MS = 100;
const DRAIN_POLL_MS = 25;

export interface DrainTarget {
  /** Stops accepting new connections. */
  stopListening(): void;
  /** Closes every connection still open. */
  closeConnections(): void;
}

/** The request counts a drain watches, kept by the handlers, and the drain itself. */
export class Drain {
  /** Set once the drain asks clients to reconnect: every answer from then on closes its connection. */
  draining = false;
  /** Requests received. */
  received = 0;
  /** Requests answered asynchronously and not answered yet. */
  inFlight = 0;
  #drained: Promise<void> | null = null;

  run(target: DrainTarget, deadlineMs: number): Promise<void> {
    this.#drained ??= this.#run(target, deadlineMs);
    return this.#drained;
  }

  async #run(target: DrainTarget, deadlineMs: number): Promise<void> {
    target.stopListening();
    await new Promise((r) => setTimeout(r, Math.min(DRAIN_LISTEN_SETTLE_MS, deadlineMs)));
    this.draining = true;
    const deadline = Date.now() + deadlineMs;
    let seen = this.received;
    let quietSince = Date.now();
    while (Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, DRAIN_POLL_MS));
      if (this.received !== seen || this.inFlight > 0) {
        seen = this.received;
        quietSince = Date.now();
      } else if (Date.now() - quietSince >= DRAIN_QUIET_MS) break;
    }
    // Whatever is still open has been idle (or the deadline passed): close it.
    target.closeConnections();
  }
}
