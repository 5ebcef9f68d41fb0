// Invariant: once loaded, the directory holds every active custom domain by host, complete, so a
// Host is answered in memory and an unknown Host costs no database query. It changes only by
// whole reads: a 'domain' invalidation re-reads that host, a resync (bus reconnect) and a
// periodic safety-net refresh re-read everything. Reads run one at a time in the order they were
// asked for, so a later read always wins over an earlier one. Until the first full read succeeds
// peek() answers undefined and whenLoaded() (re)tries it; a failed read is retried in full.
import type { Domain } from './domain-repository.ts';

export interface DomainSource {
  /** Every active custom domain. */
  all(): Promise<Domain[]>;
  /** The active custom domain of one normalised host, or null. */
  one(host: string): Promise<Domain | null>;
}

export interface DomainDirectoryOptions {
  source: DomainSource;
  /** Full re-read period, a safety net for lost invalidations (ms); 0 disables it. */
  refreshIntervalMs: number;
  /** A failed read is retried in full after this long (ms). */
  retryDelayMs?: number;
  onError: (err: unknown) => void;
}

export class DomainDirectory {
  readonly #o: DomainDirectoryOptions;
  #byHost: ReadonlyMap<string, Domain> = new Map();
  #loaded = false;
  /** The tail of the read queue (never rejects). */
  #queue: Promise<void> = Promise.resolve();
  /** The full read in progress while not loaded yet, shared by every waiting request. */
  #firstLoad: Promise<void> | null = null;
  #refreshTimer: NodeJS.Timeout | null = null;
  #retryTimer: NodeJS.Timeout | null = null;
  #stopped = false;

  constructor(options: DomainDirectoryOptions) {
    this.#o = options;
  }

  get loaded(): boolean {
    return this.#loaded;
  }

  get size(): number {
    return this.#byHost.size;
  }

  /** The active custom domain of `host` (normalised), null when none; undefined until loaded. */
  peek(host: string): Domain | null | undefined {
    if (!this.#loaded) return undefined;
    return this.#byHost.get(host) ?? null;
  }

  /** Loads every active domain and starts the periodic refresh; rejects when the read fails. */
  async start(): Promise<void> {
    this.#stopped = false;
    if (this.#o.refreshIntervalMs > 0 && this.#refreshTimer === null) {
      this.#refreshTimer = setInterval(() => void this.reloadAll().catch(() => undefined), this.#o.refreshIntervalMs);
      this.#refreshTimer.unref();
    }
    await this.whenLoaded();
  }

  stop(): void {
    this.#stopped = true;
    if (this.#refreshTimer) clearInterval(this.#refreshTimer);
    if (this.#retryTimer) clearTimeout(this.#retryTimer);
    this.#refreshTimer = null;
    this.#retryTimer = null;
  }

  /** Resolves once the directory is loaded, reading it now if it is not. */
  whenLoaded(): Promise<void> {
    if (this.#loaded) return Promise.resolve();
    this.#firstLoad ??= this.reloadAll().finally(() => {
      this.#firstLoad = null;
    });
    return this.#firstLoad;
  }

  /** Re-reads one host (after its 'domain' invalidation). */
  reload(host: string): Promise<void> {
    return this.#enqueue(async () => {
      const domain = await this.#o.source.one(host);
      // Before the first full read, that read (queued later or retried) covers this host too.
      if (!this.#loaded) return;
      const next = new Map(this.#byHost);
      if (domain === null) next.delete(host);
      else next.set(host, domain);
      this.#byHost = next;
    });
  }

  /** Re-reads every active domain (start, bus resync, periodic refresh, retry after a failure). */
  reloadAll(): Promise<void> {
    return this.#enqueue(async () => {
      const all = await this.#o.source.all();
      this.#byHost = new Map(all.map((d) => [d.host, d]));
      this.#loaded = true;
    });
  }

  #enqueue(read: () => Promise<void>): Promise<void> {
    const run = this.#queue.then(read);
    this.#queue = run.catch((err: unknown) => {
      this.#o.onError(err);
      this.#retryLater();
    });
    return run;
  }

  /** After a failed read the directory may be stale: read everything again shortly. */
  #retryLater(): void {
    if (this.#stopped || this.#retryTimer !== null) return;
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = null;
      void this.reloadAll().catch(() => undefined);
    }, this.#o.retryDelayMs ?? 1_000);
    this.#retryTimer.unref();
  }
}
