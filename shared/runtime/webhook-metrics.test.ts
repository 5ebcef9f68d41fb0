// Invariant: what an operator scrapes about webhooks follows what happened: a message failed then
// delivered counts one failed attempt, one retry and one delivery with its lag; a 410 counts a
// message given up; the pending gauge counts what waits; the analytics.events messages composed
// from the store, and their events, show. Real Postgres, chDB, a real receiver, the process's own
// registry.
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openChdbStore } from '../../test/support/analytics-stores.ts';
import { removeTestDir } from '../../test/support/test-dirs.ts';
import type { AnalyticsStore } from '../analytics/store/analytics-store.ts';
import { createTestDatabase, type TestDatabase } from '../../test/support/servers.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../test/support/webhook-receiver.ts';
import { eventRecords, sleep } from '../analytics/events/analytics-fixtures.ts';
import { createOrganization } from '../orgs/org-repository.ts';
import { createProcessMetrics } from './prometheus-metrics.ts';
import { DeliveryWorker } from '../webhooks/delivery-worker.ts';
import { sendTestEvent } from '../webhooks/webhook-actions.ts';
import { addEndpoint } from '../webhooks/webhook-repository.ts';

let db: TestDatabase;
let receiver: WebhookReceiver;
let store: AnalyticsStore;
const dir = mkdtempSync(join(process.cwd(), '.tmp', 'webhook-metrics-'));
beforeAll(async () => {
  db = await createTestDatabase(inject('realPgUrl') ?? inject('embeddedPgUrl'));
  receiver = await startWebhookReceiver();
  store = await openChdbStore(join(dir, 'chdb'), { syncSettleMillis: 20 });
});
afterAll(async () => {
  await receiver?.close();
  await store?.close();
  await db?.drop();
  removeTestDir(dir);
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
  it('count failed attempts, retries, deliveries with their lag, messages given up, pending ones and the analytics.events composed', async () => {
    const org = await createOrganization(db.sql, { name: 'wh-metrics', plan: 'BUSINESS' });
    const { endpoint } = await addEndpoint(db.sql, { allowPrivate: true, secretsKey: undefined }, org.id, {
      url: receiver.url,
      eventTypes: ['analytics.events'],
    });
    const metrics = createProcessMetrics();
    const worker = new DeliveryWorker({
      sql: db.sql,
      analytics: store,
      allowPrivate: true,
      secretsKey: undefined,
      retryScheduleMs: [50, 50],
      timeoutMs: 2_000,
    });
    metrics.watchWebhooks(worker);

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

    // The feed: of 1,500 stored events, a message of 1,000 is composed; the receiver now answers
    // 410 (given up), which drops the endpoint, so no second one is composed.
    await store.insert(eventRecords(org.id, 1500, BigInt(Date.now()) * 1000n), randomUUID());
    await sleep(100);
    answers = [];
    await db.sql`update webhook_endpoints set next_analytics_at = now() where id = ${endpoint.id}`;
    await worker.runOnce();
    await worker.runOnce();
    await worker.count();
    m = await scrape(metrics);
    expect(m.get('shortlink_webhook_analytics_messages_total')).toBe(1);
    expect(m.get('shortlink_webhook_analytics_events_total')).toBe(1000);
    expect(m.get('shortlink_webhook_failed_total')).toBe(1);
    expect(m.get('shortlink_webhook_messages_pending')).toBe(0);
  });
});
