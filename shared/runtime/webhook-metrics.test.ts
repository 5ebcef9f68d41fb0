// Invariant: what an operator scrapes about webhooks follows what happened: a message failed then
// delivered counts one failed attempt, one retry and one delivery with its lag; a 410 counts a
// message given up; the pending gauge counts what waits; the analytics.events feed's messages
// written and queue show. Real Postgres, a real receiver, the process's own registry.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test/support/servers.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../test/support/webhook-receiver.ts';
import { eventRecords, isoMicros } from '../analytics/events/analytics-fixtures.ts';
import { createOrganization } from '../orgs/org-repository.ts';
import { createProcessMetrics } from './prometheus-metrics.ts';
import { AnalyticsWebhookFeed } from '../webhooks/analytics-feed.ts';
import { DeliveryWorker } from '../webhooks/delivery-worker.ts';
import { addEndpoint, sendTestEvent } from '../webhooks/webhook-repository.ts';

let db: TestDatabase;
let receiver: WebhookReceiver;
beforeAll(async () => {
  db = await createTestDatabase(inject('realPgUrl') ?? inject('embeddedPgUrl'));
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await db?.drop();
});

async function scrape(metrics: ReturnType<typeof createProcessMetrics>): Promise<Map<string, number>> {
  const text = (await metrics.render()).body;
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^(shortlink_webhook_[a-z0-9_]+(?:\{[^}]*\})?) (\S+)$/.exec(line);
    if (m) out.set(m[1] as string, Number(m[2]));
  }
  return out;
}

describe('webhook metrics', () => {
  it('count failed attempts, retries, deliveries with their lag, messages given up, pending ones and the analytics feed', async () => {
    const org = await createOrganization(db.sql, { name: 'wh-metrics', plan: 'BUSINESS' });
    const { endpoint } = await addEndpoint(db.sql, { allowPrivate: true, secretsKey: undefined }, org.id, {
      url: receiver.url,
      eventTypes: ['analytics.events'],
    });
    const metrics = createProcessMetrics();
    const worker = new DeliveryWorker({ sql: db.sql, allowPrivate: true, secretsKey: undefined, retryScheduleMs: [50, 50], timeoutMs: 2_000 });
    const feed = new AnalyticsWebhookFeed({ sql: db.sql });
    metrics.watchWebhooks(worker);
    metrics.watchAnalyticsFeed(feed);

    let answers = [503, 204];
    receiver.answer = (_req, res) => {
      res.writeHead(answers.shift() ?? 410).end();
    };
    await sendTestEvent(db.sql, org.id, endpoint.id);
    await worker.count();
    expect((await scrape(metrics)).get('shortlink_webhook_messages_pending')).toBe(1);
    while (worker.metrics().delivered === 0) {
      await worker.runOnce();
      await new Promise((r) => setTimeout(r, 60));
    }
    await worker.count();
    let m = await scrape(metrics);
    expect(m.get('shortlink_webhook_failed_attempts_total')).toBe(1);
    expect(m.get('shortlink_webhook_retried_total')).toBe(1);
    expect(m.get('shortlink_webhook_delivered_total')).toBe(1);
    expect(m.get('shortlink_webhook_delivery_lag_seconds_count')).toBe(1);
    expect(m.get('shortlink_webhook_delivery_lag_seconds_sum')).toBeGreaterThan(0.05); // it waited for its retry
    expect(m.get('shortlink_webhook_messages_pending')).toBe(0);
    expect(m.get('shortlink_webhook_failed_total')).toBe(0);

    // The feed: 1,500 stored events make two messages; the receiver now answers 410 (given up).
    await feed.backfilled(eventRecords(org.id, 1500, isoMicros('2026-11-24T12:00:00Z')), randomUUID());
    m = await scrape(metrics);
    expect(m.get('shortlink_webhook_analytics_messages_written_total')).toBe(2);
    expect(m.get('shortlink_webhook_analytics_queued_events')).toBe(0);
    expect(m.get('shortlink_webhook_analytics_dropped_events_total')).toBe(0);
    answers = [];
    await worker.runOnce();
    await worker.count();
    m = await scrape(metrics);
    expect(m.get('shortlink_webhook_failed_total')).toBe(1);
    expect(m.get('shortlink_webhook_messages_pending')).toBe(0); // the 410 dropped the other one too
    await feed.close();
  });
});
