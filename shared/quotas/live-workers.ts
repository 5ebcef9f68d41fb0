// Invariant: every redirector worker of the fleet announces itself in a shared registry every
// HEARTBEAT_MS and reads back how many workers announced within LIVE_MS (itself included). The
// count it last read is what current() answers, also while the registry is unreachable (the
// quota shares of an outage come from it); before any read, and never below, it is the worker's
// own host's worker count. stop() leaves the registry at once, so a clean stop frees its share.
import { randomUUID } from 'node:crypto';

export interface WorkerRegistry {
  /** Announces `workerId` as live now; the live workers of the fleet, this one included. */
  heartbeat(workerId: string, liveMs: number): Promise<number>;
  /** Removes `workerId` (a clean stop). */
  leave(workerId: string): Promise<void>;
}

export const HEARTBEAT_MS = 2_000;
/** A worker missing this many heartbeats in a row no longer counts. */
export const LIVE_MS = 3 * HEARTBEAT_MS;

export class LiveWorkers {
  readonly id = randomUUID();
  readonly #registry: WorkerRegistry;
  readonly #floor: number;
  readonly #onError: (err: unknown) => void;
  #count: number;
  #timer: NodeJS.Timeout | null = null;

  /** `hostWorkers`: this host's worker count, the answer until the registry is read and its lower bound. */
  constructor(o: { registry: WorkerRegistry; hostWorkers: number; onError?: (err: unknown) => void }) {
    this.#registry = o.registry;
    this.#floor = Math.max(1, o.hostWorkers);
    this.#count = this.#floor;
    this.#onError = o.onError ?? (() => undefined);
  }

  /** The fleet's live workers as last seen (at least this host's). */
  readonly current = (): number => this.#count;

  /** Announces this worker now, then every HEARTBEAT_MS. */
  async start(): Promise<void> {
    await this.#beat();
    this.#timer ??= setInterval(() => void this.#beat(), HEARTBEAT_MS);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    await this.#registry.leave(this.id).catch((err: unknown) => this.#onError(err));
  }

  async #beat(): Promise<void> {
    try {
      this.#count = Math.max(this.#floor, await this.#registry.heartbeat(this.id, LIVE_MS));
    } catch (err) {
      this.#onError(err);
    }
  }
}
