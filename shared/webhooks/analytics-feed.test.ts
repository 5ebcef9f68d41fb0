// Invariant: events the store took become analytics.events messages of the API's event objects,
// at most 1,000 a message, only for organisations with an enabled endpoint wanting them, from a
// columnar batch (the write buffer) and from records (the backfill) alike. Real Postgres.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test/support/servers.ts';
import { eventRecords, isoMicros } from '../analytics/events/analytics-fixtures.ts';
import { toAnalyticsEvent } from '../analytics/events/analytics-event.ts';
import { batchFromRecords } from '../analytics/events/event-batch.ts';
import { createOrganization } from '../orgs/org-repository.ts';
import { AnalyticsWebhookFeed } from './analytics-feed.ts';
import { addEndpoint } from './webhook-repository.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase(inject('realPgUrl') ?? inject('embeddedPgUrl'));
});
afterAll(async () => db?.drop());

const settings = { allowPrivate: true, secretsKey: undefined };

async function messagesOf(endpointId: string): Promise<{ events: unknown[]; count: number }[]> {
  const rows = await db.sql<{ body: string; event_count: number }[]>`
    select body, event_count from webhook_messages where endpoint_id = ${endpointId} and type = 'analytics.events' order by created_at, id`;
  return rows.map((r) => ({ events: (JSON.parse(r.body) as { data: { events: unknown[] } }).data.events, count: r.event_count }));
}

async function settled(feed: AnalyticsWebhookFeed): Promise<void> {
  while (feed.metrics().queuedEvents > 0) await new Promise((r) => setTimeout(r, 10));
}

describe('AnalyticsWebhookFeed', () => {
  it('turns stored batches and records into messages of ≤1,000 API event objects, for subscribed organisations only', async () => {
    const org = await createOrganization(db.sql, { name: 'feed', plan: 'BUSINESS' });
    const quiet = await createOrganization(db.sql, { name: 'feed-quiet', plan: 'BUSINESS' });
    const { endpoint } = await addEndpoint(db.sql, settings, org.id, { url: 'http://127.0.0.1:9/h', eventTypes: ['analytics.events'] });
    const linkOnly = await addEndpoint(db.sql, settings, quiet.id, { url: 'http://127.0.0.1:9/h', eventTypes: ['link.created'] });
    const feed = new AnalyticsWebhookFeed({ sql: db.sql });
    await feed.refresh();

    const start = isoMicros('2026-11-24T10:00:00Z');
    const mine = eventRecords(org.id, 2500, start);
    const theirs = eventRecords(quiet.id, 10, start);
    feed.onStored(batchFromRecords([...mine.slice(0, 1500), ...theirs]));
    feed.onStored(mine.slice(1500)); // as the backfill hands them
    await settled(feed);

    const messages = await messagesOf(endpoint.id);
    expect(messages.map((m) => m.count)).toEqual([1000, 500, 1000]);
    expect(messages.map((m) => m.events.length)).toEqual([1000, 500, 1000]);
    expect(messages.flatMap((m) => m.events)).toEqual(mine.map(toAnalyticsEvent));
    expect(await messagesOf(linkOnly.endpoint.id)).toEqual([]);
    await feed.close();
  });
});
