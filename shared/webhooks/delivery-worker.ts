// Invariant: delivery is a pipeline, one message at a time through it: claim (a lease:
// delivery-claims.ts) → send (signed, bounded: webhook-sender.ts) → decide (the pure retry
// policy: retry-policy.ts) → record (delivery-records.ts), and the metrics count that same
// outcome. A started worker keeps up to batchSize attempts in flight and claims again as each
// one ends (woken by it, else every pollIntervalMs), so a slow or hanging receiver holds only its
// own attempts; housekeeping (the gauges every COUNT_INTERVAL_MS, pruning hourly) rides on the
// claims.
import { randomUUID } from 'node:crypto';
import type { Sql } from '../db/sql.ts';
import { silentLogger, type Logger } from '../log/logger.ts';
import { DeliveryClaims, type AnalyticsFeedSource, type Claimed } from './delivery-claims.ts';
import { countPending, pruneLog, recordAttempt } from './delivery-records.ts';
import { outcomeOf, RETRY_SCHEDULE_MS, type Outcome } from './retry-policy.ts';
import { openSecret } from './webhook-secret.ts';
import { webhookKey, webhookSignature } from './webhook-signature.ts';
import { DELIVERY_TIMEOUT_MS, sendAttempt, type AttemptResult } from './webhook-sender.ts';

export const LEASE_MS = DELIVERY_TIMEOUT_MS * 4;
const COUNT_INTERVAL_MS = 5_000;
const PRUNE_INTERVAL_MS = 3600_000;

export interface DeliveryWorkerOptions {
  sql: Sql;
  /** Where analytics.events messages are composed from; null: this worker sends none. */
  analytics: AnalyticsFeedSource | null;
  allowPrivate: boolean;
  secretsKey: Buffer | undefined;
  logger?: Logger;
  /** Attempts in flight at most. */
  batchSize?: number;
  pollIntervalMs?: number;
  leaseMs?: number;
  timeoutMs?: number;
  /** Replaces RETRY_SCHEDULE_MS (tests). */
  retryScheduleMs?: readonly number[];
}

export interface DeliveryMetrics {
  delivered: number;
  /** Attempts that did not deliver. */
  failedAttempts: number;
  /** Messages given up on (schedule spent) or dropped (410). */
  failed: number;
  retried: number;
  pending: number;
  /** Enabled endpoints with a message still retrying and no delivery since a failure over an hour ago. */
  endpointsFailingForAnHour: number;
  /** analytics.events messages this worker composed from the store, and the events in them. */
  analyticsMessages: number;
  analyticsEvents: number;
}

/** The webhook-* headers of one attempt, signed with the endpoint's secret (and the previous one during a rotation). */
function signedHeaders(m: Claimed, secretsKey: Buffer | undefined): Record<string, string> {
  const timestamp = Math.floor(Date.now() / 1000);
  const secrets = [m.secret, ...(m.previousSecret === null ? [] : [m.previousSecret])].map((s) => openSecret(s, secretsKey));
  const signature = secrets.map((s) => webhookSignature(webhookKey(s), m.id, timestamp, m.body)).join(' ');
  return { 'webhook-id': m.id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signature };
}

export class DeliveryWorker {
  readonly owner = `worker-${randomUUID()}`;
  readonly #o: Required<Omit<DeliveryWorkerOptions, 'secretsKey' | 'logger' | 'analytics'>> & Pick<DeliveryWorkerOptions, 'secretsKey'>;
  readonly #claims: DeliveryClaims;
  readonly #log: Logger;
  readonly #m: Omit<DeliveryMetrics, 'analyticsMessages' | 'analyticsEvents'> = {
    delivered: 0,
    failedAttempts: 0,
    failed: 0,
    retried: 0,
    pending: 0,
    endpointsFailingForAnHour: 0,
  };
  #timer: NodeJS.Timeout | null = null;
  /** The claim in progress (start()'s loop). */
  #filling: Promise<void> | null = null;
  /** Attempts in flight (start()'s loop), each removed when its outcome is recorded. */
  readonly #sending = new Set<Promise<void>>();
  #stopped = false;
  /** Claims again now, unless a claim is under way (start() sets it). */
  #wake: () => void = () => undefined;
  #wokenWhileFilling = false;
  #lastPrune = 0;
  #lastCount = 0;
  /** Called with each delivered message's lag from its creation (or replay) to its receipt, in seconds. */
  onDelivered: ((lagSeconds: number) => void) | null = null;

  constructor(o: DeliveryWorkerOptions) {
    this.#o = { batchSize: 32, pollIntervalMs: 250, leaseMs: LEASE_MS, timeoutMs: DELIVERY_TIMEOUT_MS, retryScheduleMs: RETRY_SCHEDULE_MS, ...o };
    this.#claims = new DeliveryClaims(o.sql, this.owner, this.#o.leaseMs, o.analytics);
    this.#log = o.logger ?? silentLogger;
  }

  metrics(): DeliveryMetrics {
    return { ...this.#m, analyticsMessages: this.#claims.composed.messages, analyticsEvents: this.#claims.composed.events };
  }

  /** Sends continuously: claims into free slots, again at once while it finds work, else every pollIntervalMs. */
  start(): void {
    this.#stopped = false;
    const tick = (): void => {
      if (this.#timer) clearTimeout(this.#timer);
      this.#timer = null;
      if (this.#stopped) return;
      this.#filling = this.#fill().then(
        (claimed) => {
          this.#filling = null;
          if (this.#stopped) return;
          const again = (claimed > 0 || this.#wokenWhileFilling) && this.#sending.size < this.#o.batchSize;
          this.#wokenWhileFilling = false;
          this.#timer = setTimeout(tick, again ? 0 : this.#o.pollIntervalMs);
        },
        (err: unknown) => {
          this.#filling = null;
          this.#log.warn({ err }, 'webhook delivery round failed');
          if (!this.#stopped) this.#timer = setTimeout(tick, this.#o.pollIntervalMs);
        },
      );
    };
    this.#wake = () => {
      if (this.#stopped) return;
      if (this.#filling === null) tick();
      else this.#wokenWhileFilling = true;
    };
    tick();
  }

  /** Stops claiming; waits for the attempts in flight (each bounded by its timeout). */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    await this.#filling;
    await Promise.all(this.#sending);
  }

  /** One round (tests): claims due messages, sends them, records the outcomes. Returns how many were sent. */
  async runOnce(): Promise<number> {
    const claimed = await this.#claim(this.#o.batchSize);
    await Promise.all(claimed.map((m) => this.#deliver(m)));
    await this.#housekeeping();
    return claimed.length;
  }

  /** Claims into the free slots and starts those attempts without waiting for them. */
  async #fill(): Promise<number> {
    const free = this.#o.batchSize - this.#sending.size;
    const claimed = free > 0 ? await this.#claim(free) : [];
    for (const m of claimed) {
      const attempt: Promise<void> = this.#deliver(m)
        .catch((err: unknown) => this.#log.warn({ err, webhookId: m.id }, 'recording a webhook attempt failed'))
        .finally(() => {
          this.#sending.delete(attempt);
          this.#wake(); // a slot is free, and the endpoint may have its next message due
        });
      this.#sending.add(attempt);
    }
    await this.#housekeeping();
    return claimed.length;
  }

  async #claim(limit: number): Promise<Claimed[]> {
    const others = await this.#claims.messages(limit);
    if (limit <= others.length) return others;
    const analytics = await this.#claims.analytics(limit - others.length, (err) => this.#log.warn({ err }, 'composing an analytics.events message failed'));
    return [...others, ...analytics];
  }

  /** send → decide → record, and count the outcome. */
  async #deliver(m: Claimed): Promise<void> {
    const result = await this.#send(m);
    const outcome = outcomeOf(result, m.failures, { schedule: this.#o.retryScheduleMs });
    await recordAttempt(this.#o.sql, this.owner, m, result, outcome);
    this.#count(m, result, outcome);
  }

  async #send(m: Claimed): Promise<AttemptResult> {
    try {
      return await sendAttempt(m.url, signedHeaders(m, this.#o.secretsKey), m.body, { allowPrivate: this.#o.allowPrivate, timeoutMs: this.#o.timeoutMs });
    } catch (err) {
      // Only a secret that cannot be opened gets here: logged, retried on the schedule.
      return { statusCode: null, error: err instanceof Error ? err.message : String(err), durationMs: 0, responseBody: '', retryAfterMs: null };
    }
  }

  #count(m: Claimed, r: AttemptResult, outcome: Outcome): void {
    if (outcome.kind === 'delivered') {
      this.#m.delivered++;
      this.onDelivered?.(Math.max(0, Date.now() - m.sinceMs) / 1000);
      return;
    }
    this.#m.failedAttempts++;
    if (outcome.kind === 'retry') this.#m.retried++;
    else this.#m.failed++;
    this.#log.info({ webhookId: m.id, endpointId: m.endpointId, status: r.statusCode, error: r.error }, 'webhook attempt failed');
  }

  async #housekeeping(): Promise<void> {
    if (Date.now() - this.#lastPrune > PRUNE_INTERVAL_MS) {
      this.#lastPrune = Date.now();
      await pruneLog(this.#o.sql);
    }
    if (Date.now() - this.#lastCount > COUNT_INTERVAL_MS) {
      this.#lastCount = Date.now();
      await this.count();
    }
  }

  /** Reads the gauges: messages pending, endpoints failing for an hour. */
  async count(): Promise<void> {
    const { pending, failing } = await countPending(this.#o.sql);
    this.#m.pending = pending;
    this.#m.endpointsFailingForAnHour = failing;
  }
}

/** A process's delivery worker (ingest in production, npm start when embedded), started. */
export function startDeliveryWorker(
  sql: Sql,
  analytics: AnalyticsFeedSource,
  config: { WEBHOOK_ALLOW_PRIVATE: boolean; WEBHOOK_SECRETS_KEY?: Buffer | undefined },
  logger: Logger,
): DeliveryWorker {
  const worker = new DeliveryWorker({
    sql,
    analytics,
    allowPrivate: config.WEBHOOK_ALLOW_PRIVATE,
    secretsKey: config.WEBHOOK_SECRETS_KEY,
    logger: logger.child({ role: 'webhooks' }),
  });
  worker.start();
  return worker;
}
