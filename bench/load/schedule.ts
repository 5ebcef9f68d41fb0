// Invariant: an open-loop schedule. Request i is due at i × 1000 / rate ms after the start, whatever
// happened to the requests before it, and is handed to the connection that has been idle the
// longest. Its latency counts from its slot in the schedule, so time a request spent waiting
// because every connection was still busy with a slow server counts (no coordinated omission).
// Only when a connection already stood idle at the slot is the request's latency counted from
// when it was handed out: the generator's own lateness (timer granularity, a pause of the
// generator's event loop), which the caller reports on its own. Pure: the caller passes the clock;
// the idle queue holds at most one entry per connection.

export class OpenLoop {
  readonly intervalMs: number;
  #total: number;
  #next = 0;
  readonly #idleConn: Int32Array;
  readonly #idleSince: Float64Array;
  #head = 0;
  #idleCount: number;

  /** Every connection starts idle at time 0. */
  constructor(rate: number, durationMs: number, connections: number) {
    this.intervalMs = 1000 / rate;
    this.#total = Math.max(1, Math.round((durationMs * rate) / 1000));
    this.#idleConn = new Int32Array(connections);
    this.#idleSince = new Float64Array(connections);
    for (let c = 0; c < connections; c++) this.#idleConn[c] = c;
    this.#idleCount = connections;
  }

  /** Requests in the schedule. */
  get total(): number {
    return this.#total;
  }

  /** Requests handed out so far. */
  get taken(): number {
    return this.#next;
  }

  get idle(): number {
    return this.#idleCount;
  }

  /** True once every request of the schedule was handed out. */
  get exhausted(): boolean {
    return this.#next >= this.#total;
  }

  /** When request `i` is due, in ms from the start. */
  slot(i: number): number {
    return i * this.intervalMs;
  }

  /** Requests whose slot has come by `nowMs` (handed out or not). */
  due(nowMs: number): number {
    return Math.min(this.#total, Math.floor(nowMs / this.intervalMs) + 1);
  }

  /** Requests due by `nowMs` and not handed out yet (all connections were busy, or the generator was late). */
  backlog(nowMs: number): number {
    return Math.max(0, this.due(nowMs) - this.#next);
  }

  /** ms until the next request's slot (0 when due now), or null when the schedule is exhausted. */
  msUntilNext(nowMs: number): number | null {
    if (this.exhausted) return null;
    return Math.max(0, this.slot(this.#next) - nowMs);
  }

  /** Connection `conn` finished its request at `nowMs` and waits for the next. */
  release(conn: number, nowMs: number): void {
    const at = (this.#head + this.#idleCount) % this.#idleConn.length;
    this.#idleConn[at] = conn;
    this.#idleSince[at] = nowMs;
    this.#idleCount++;
  }

  /**
   * Hands every request due by `nowMs` to an idle connection, longest idle first:
   * send(conn, index, originMs, lateMs), where originMs is what its latency counts from and lateMs
   * the generator's own lateness (0 when the request waited for a busy connection). Returns how
   * many were handed out.
   */
  dispatch(nowMs: number, send: (conn: number, index: number, originMs: number, lateMs: number) => void): number {
    const due = this.due(nowMs);
    let handed = 0;
    while (this.#idleCount > 0 && this.#next < due) {
      const conn = this.#idleConn[this.#head] ?? 0;
      const idleSince = this.#idleSince[this.#head] ?? 0;
      this.#head = (this.#head + 1) % this.#idleConn.length;
      this.#idleCount--;
      const index = this.#next++;
      const slot = this.slot(index);
      if (idleSince <= slot) send(conn, index, nowMs, nowMs - slot);
      else send(conn, index, slot, 0);
      handed++;
    }
    return handed;
  }

  /** Cuts the schedule to its first `count` requests (never below those handed out); returns how many it removed. */
  truncate(count: number): number {
    const before = this.#total;
    this.#total = Math.max(this.#next, Math.min(this.#total, count));
    return before - this.#total;
  }
}
