// Invariant: a process answers GET /readyz on the port of its /healthz: 200 from markReady()
// until the first stop signal (onShutdown calls stopping() before its first closer), while every
// check of a dependency it cannot serve without answers; else 503 naming why (starting,
// stopping, or unavailable with the failing checks). A dependency with a fallback (Redis: the
// in-process limiter and caches; ClickHouse: the spool) is no check: the process still serves.
// Checks run at most once per CHECK_CACHE_MS, each bounded by CHECK_TIMEOUT_MS, so a flood of
// probes costs one check a second. /healthz stays liveness only.

export interface ReadinessCheck {
  name: string;
  check: () => Promise<unknown>;
}

export type ReadinessState = 'starting' | 'ready' | 'stopping';

export interface ReadinessAnswer {
  status: 200 | 503;
  /** The JSON envelope: {"response":{"status":"ready"}}, or the reason. */
  body: string;
}

const CHECK_CACHE_MS = 1_000;
const CHECK_TIMEOUT_MS = 1_000;

export class Readiness {
  #state: ReadinessState = 'starting';
  readonly #checks: readonly ReadinessCheck[];
  #last: { at: number; failing: string[] } | null = null;
  #running: Promise<string[]> | null = null;

  constructor(checks: readonly ReadinessCheck[] = []) {
    this.#checks = checks;
  }

  /** Ready from the start (tests, and servers built outside an entry point). */
  static ready(checks: readonly ReadinessCheck[] = []): Readiness {
    const r = new Readiness(checks);
    r.markReady();
    return r;
  }

  get state(): ReadinessState {
    return this.#state;
  }

  markReady(): void {
    if (this.#state === 'starting') this.#state = 'ready';
  }

  /** From the stop signal on: 503, for good. */
  stopping(): void {
    this.#state = 'stopping';
  }

  async answer(now = Date.now()): Promise<ReadinessAnswer> {
    if (this.#state !== 'ready') return unready({ status: this.#state });
    const failing = await this.#failing(now);
    if (this.#state !== 'ready') return unready({ status: this.#state });
    return failing.length === 0 ? { status: 200, body: '{"response":{"status":"ready"}}' } : unready({ status: 'unavailable', unavailable: failing });
  }

  async #failing(now: number): Promise<string[]> {
    if (this.#checks.length === 0) return [];
    if (this.#last && now - this.#last.at < CHECK_CACHE_MS) return this.#last.failing;
    this.#running ??= Promise.all(this.#checks.map(async (c) => ((await passes(c.check)) ? null : c.name)))
      .then((names) => names.filter((n): n is string => n !== null))
      .finally(() => {
        this.#running = null;
      });
    const failing = await this.#running;
    this.#last = { at: now, failing };
    return failing;
  }
}

function unready(response: object): ReadinessAnswer {
  return { status: 503, body: JSON.stringify({ response }) };
}

async function passes(check: () => Promise<unknown>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([check(), new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('timeout')), CHECK_TIMEOUT_MS)))]);
    return true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/** The check of a Postgres the process cannot serve without. */
export function postgresCheck(sql: (strings: TemplateStringsArray) => Promise<unknown>): ReadinessCheck {
  return { name: 'postgres', check: () => sql`select 1` };
}
