// Invariant: link.expired is queued once per expiry. queueLinkExpired sets
// links.expired_notified_at only where it is null and queues the message in that transaction only
// when it did, always under the link's row lock. An expiry is found three ways: by the save that
// leaves an active link expired (an expiresAt in the past, a maxClicks at or below the clicks
// counted), by the sweep's time pass (active links whose expires_at passed, through the
// links_expiry_due index, SKIP LOCKED so concurrent sweepers split the rows), and by its clicks
// pass (the counter's exhausted-links log, checked again against the counter under the lock and
// cleared only after the commit). A save that changes expiresAt or maxClicks and leaves the link
// live clears the mark, so the next expiry is sent again. Archived links are not sent; restored,
// they are found again.
import { isUuid } from '../ids/model/uuid.ts';
import { findApps } from '../apps/mobile-app-repository.ts';
import { shortLinkBase } from '../config/config.ts';
import type { Sql, Tx } from '../db/sql.ts';
import type { Logger } from '../log/logger.ts';
import type { ExhaustedLink, ExhaustedLinks, LinkClickCounter } from '../quotas/link-click-counter.ts';
import { enqueueWebhookEvent } from '../webhooks/webhook-events.ts';
import type { Link } from './link.ts';
import { lockLinksByIdSkipLocked } from './link-repository.ts';
import { toLinkResponse, type LinkResponse } from './link-response.ts';

/** Marks the (locked) link's expiry as sent and queues link.expired, unless it was already; whether it did. */
export async function queueLinkExpired(tx: Tx, link: Link, view: LinkResponse): Promise<boolean> {
  const rows = await tx`update links set expired_notified_at = now() where id = ${link.id} and expired_notified_at is null returning id`;
  if (rows.length === 0) return false;
  await enqueueWebhookEvent(tx, link.orgId, 'link.expired', view);
  return true;
}

/** Clears the link's mark: its next expiry is sent again. */
export async function rearmLinkExpiry(tx: Tx, linkId: string): Promise<void> {
  await tx`update links set expired_notified_at = null where id = ${linkId} and expired_notified_at is not null`;
}

export interface LinkExpirySweepDeps {
  sql: Sql;
  shortLinkBase: string;
  /** The redirectors' click counters and their exhausted-links log. */
  linkClicks: ExhaustedLinks & Pick<LinkClickCounter, 'count'>;
  /** Links handled per statement (default 100). */
  batch?: number;
  /** Batches per pass and round at most, so one round is bounded (default 10). */
  maxBatches?: number;
  /** Pause between rounds (default 5 s). */
  intervalMs?: number;
  onError?(err: unknown): void;
}

export class LinkExpirySweep {
  readonly #d: Required<Omit<LinkExpirySweepDeps, 'onError'>> & Pick<LinkExpirySweepDeps, 'onError'>;
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<unknown> | null = null;
  #stopped = false;

  constructor(deps: LinkExpirySweepDeps) {
    this.#d = { batch: 100, maxBatches: 10, intervalMs: 5_000, ...deps };
  }

  start(): void {
    this.#stopped = false;
    this.#schedule(0);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    await this.#running;
  }

  #schedule(ms: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#running = this.sweep()
        .catch((err: unknown) => this.#d.onError?.(err))
        .finally(() => {
          this.#running = null;
          this.#schedule(this.#d.intervalMs);
        });
    }, ms);
    this.#timer.unref();
  }

  /** One round: both passes, each up to maxBatches batches. The messages queued by each. */
  async sweep(): Promise<{ byTime: number; byClicks: number }> {
    let byTime = 0;
    let byClicks = 0;
    for (let i = 0; i < this.#d.maxBatches; i++) {
      const r = await this.#timePass();
      byTime += r.queued;
      if (r.seen < this.#d.batch) break;
    }
    for (let i = 0; i < this.#d.maxBatches; i++) {
      const r = await this.#clicksPass();
      byClicks += r.queued;
      if (r.seen < this.#d.batch) break;
    }
    return { byTime, byClicks };
  }

  async #timePass(): Promise<{ seen: number; queued: number }> {
    return this.#d.sql.begin(async (tx) => {
      const due = await tx<{ id: string }[]>`
        select id from links
        where is_active and expires_at is not null and expires_at <= now() and expired_notified_at is null
        order by expires_at limit ${this.#d.batch} for update skip locked`;
      const links = await lockLinksByIdSkipLocked(
        tx,
        due.map((r) => r.id),
      );
      let queued = 0;
      for (const link of links) if (await queueLinkExpired(tx, link, await this.#view(tx, link))) queued++;
      return { seen: due.length, queued };
    });
  }

  async #clicksPass(): Promise<{ seen: number; queued: number }> {
    const entries = await this.#d.linkClicks.exhausted(this.#d.batch);
    const done: ExhaustedLink[] = [];
    let queued = 0;
    for (const entry of entries) {
      if (!isUuid(entry.linkId)) {
        done.push(entry);
        continue;
      }
      const handled = await this.#d.sql.begin(async (tx) => {
        const [link] = await lockLinksByIdSkipLocked(tx, [entry.linkId]);
        if (link === undefined) {
          // Locked by a save or another sweeper: left for the next round; gone: cleared.
          const [exists] = await tx`select 1 from links where id = ${entry.linkId}`;
          return exists === undefined;
        }
        if (link.isActive && link.maxClicks !== null && (await this.#d.linkClicks.count(link.id)) >= link.maxClicks) {
          if (await queueLinkExpired(tx, link, await this.#view(tx, link))) queued++;
        }
        return true;
      });
      if (handled) done.push(entry);
    }
    await this.#d.linkClicks.clearExhausted(done);
    return { seen: entries.length, queued };
  }

  async #view(tx: Tx, link: Link): Promise<LinkResponse> {
    const apps = await findApps(
      tx,
      link.orgId,
      link.deepLinks.map((d) => d.mobileAppId),
    );
    return toLinkResponse(link, apps, { shortLinkBase: this.#d.shortLinkBase, includeAppId: true });
  }
}

/** The sweep of a process that runs the webhook delivery worker (ingest; `npm start` embedded), started. */
export function startLinkExpirySweep(
  sql: Sql,
  config: Parameters<typeof shortLinkBase>[0],
  linkClicks: LinkExpirySweepDeps['linkClicks'],
  logger: Logger,
): LinkExpirySweep {
  const log = logger.child({ role: 'link-expiry' });
  const sweep = new LinkExpirySweep({ sql, shortLinkBase: shortLinkBase(config), linkClicks, onError: (err) => log.warn({ err }, 'link expiry sweep') });
  sweep.start();
  return sweep;
}
