// Invariant: a process runs at most `concurrency` preview refreshes at once. Waiting ones are
// queued per organisation and served fairly: the next one comes from the organisation served
// least recently, so one organisation's bulk save never delays another's single save by more
// than the refreshes already running. A destination host starts at most its rate of fetches (see
// host-rate-limiter.ts); a URL waiting for its host never holds up other hosts. The queue is
// bounded per organisation and in total: past a bound the URL is skipped with a log line. A URL
// already queued or running is not queued again.
import { LRUCache } from 'lru-cache';
import type { Logger } from '../log/logger.ts';
import { HostRateLimiter } from './host-rate-limiter.ts';

export interface PreviewFetchQueueOptions {
  /** Refreshes running at once (PREVIEW_FETCH_CONCURRENCY). */
  concurrency: number;
  /** Fetches a minute one destination host may receive (PREVIEW_FETCHES_PER_HOST_PER_MIN). */
  hostFetchesPerMinute: number;
  /** The refresh itself; never expected to throw (a rejection is logged). */
  run(url: string): Promise<unknown>;
  /** Where skipped and failed refreshes are reported. */
  logger: Logger;
  maxQueuedPerOrg?: number;
  maxQueued?: number;
  now?(): number;
}

/** Most fetches one host may receive back to back before its rate applies. */
export const HOST_BURST = 4;
/** Default bounds of the waiting URLs: per organisation, and in all. */
export const QUEUE_BOUNDS = { perOrg: 100, total: 1_000 } as const;

export class PreviewFetchQueue {
  /** Waiting URLs per organisation; an organisation with none has no entry. */
  private readonly orgs = new Map<string, string[]>();
  /** When each organisation was last served (a counter), remembered for a bounded number of them. */
  private readonly lastServed = new LRUCache<string, number>({ max: 10_000 });
  private readonly known = new Set<string>(); // queued or running
  private readonly hosts: HostRateLimiter;
  private readonly maxQueuedPerOrg: number;
  private readonly maxQueued: number;
  private queued = 0;
  private running = 0;
  private served = 0;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(private readonly o: PreviewFetchQueueOptions) {
    this.hosts = new HostRateLimiter(o.hostFetchesPerMinute, Math.min(HOST_BURST, o.hostFetchesPerMinute), 10_000, o.now);
    this.maxQueuedPerOrg = o.maxQueuedPerOrg ?? QUEUE_BOUNDS.perOrg;
    this.maxQueued = o.maxQueued ?? QUEUE_BOUNDS.total;
  }

  /** Queues a refresh of `url` for `orgId`; false when it was skipped (already queued, or a bound reached). */
  submit(orgId: string, url: string): boolean {
    if (this.closed || this.known.has(url)) return false;
    const urls = this.orgs.get(orgId) ?? [];
    if (urls.length >= this.maxQueuedPerOrg || this.queued >= this.maxQueued) {
      this.o.logger.warn(`preview of ${url} skipped: fetch queue full (${urls.length} queued for organisation ${orgId}, ${this.queued} in all)`);
      return false;
    }
    urls.push(url);
    this.orgs.set(orgId, urls);
    this.known.add(url);
    this.queued++;
    this.pump();
    return true;
  }

  /** Refreshes queued but not started. */
  get size(): number {
    return this.queued;
  }

  /** Drops what is queued; running refreshes finish on their own. */
  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.orgs.clear();
    this.queued = 0;
  }

  private pump(): void {
    while (this.running < this.o.concurrency && this.queued > 0) {
      const next = this.pick();
      if (next === null) return;
      this.start(next);
    }
  }

  /** The next URL whose host has a token, from the organisation served least recently; null arms a timer. */
  private pick(): string | null {
    let soonest = Number.POSITIVE_INFINITY;
    const rank = (orgId: string): number => this.lastServed.peek(orgId) ?? -1;
    const byFairness = [...this.orgs.entries()].sort((a, b) => rank(a[0]) - rank(b[0]));
    for (const [orgId, urls] of byFairness) {
      for (let k = 0; k < urls.length; k++) {
        const url = urls[k] as string;
        const wait = this.hosts.take(hostOf(url));
        if (wait > 0) {
          soonest = Math.min(soonest, wait);
          continue;
        }
        urls.splice(k, 1);
        this.lastServed.set(orgId, ++this.served);
        if (urls.length === 0) this.orgs.delete(orgId);
        this.queued--;
        return url;
      }
    }
    if (this.timer === null && Number.isFinite(soonest)) {
      this.timer = setTimeout(() => {
        this.timer = null;
        this.pump();
      }, soonest);
      this.timer.unref();
    }
    return null;
  }

  private start(url: string): void {
    this.running++;
    this.o
      .run(url)
      .catch((err: unknown) => this.o.logger.warn({ err }, `preview of ${url}`))
      .finally(() => {
        this.running--;
        this.known.delete(url);
        if (!this.closed) this.pump();
      });
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return '';
  }
}
