// Invariant: events the store took become analytics.events messages of the API's event objects,
// at most 1,000 a message, only for organisations with an enabled endpoint wanting them at the
// hand-over (an endpoint added just before gets the very next batch), from a columnar batch (the
// write buffer) and from records (the backfill) alike; a batch handed over again under its token
// makes no second message, even once its messages were merged. Real Postgres.
import { randomUUID } from 'node:crypto';
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

    const start = isoMicros('2026-11-24T10:00:00Z');
    const mine = eventRecords(org.id, 2500, start);
    const theirs = eventRecords(quiet.id, 10, start);
    feed.stored(batchFromRecords([...mine.slice(0, 1500), ...theirs]), randomUUID());
    await settled(feed);
    await feed.backfilled(mine.slice(1500), randomUUID()); // as the backfill hands them

    const messages = await messagesOf(endpoint.id);
    expect(messages.map((m) => m.count)).toEqual([1000, 500, 1000]);
    expect(messages.map((m) => m.events.length)).toEqual([1000, 500, 1000]);
    expect(messages.flatMap((m) => m.events)).toEqual(mine.map(toAnalyticsEvent));
    expect(await messagesOf(linkOnly.endpoint.id)).toEqual([]);
    await feed.close();
  });

  it('feeds an endpoint added just before a batch, and makes a batch handed over twice (before and after a merge) into messages once', async () => {
    const org = await createOrganization(db.sql, { name: 'feed-once', plan: 'BUSINESS' });
    const feed = new AnalyticsWebhookFeed({ sql: db.sql });
    const start = isoMicros('2026-11-24T11:00:00Z');
    const before = eventRecords(org.id, 5, start);
    feed.stored(batchFromRecords(before), randomUUID()); // no endpoint yet: no message
    await settled(feed);
    const { endpoint } = await addEndpoint(db.sql, settings, org.id, { url: 'http://127.0.0.1:9/h', eventTypes: ['analytics.events'] });
    const batch = eventRecords(org.id, 1200, start + 10_000_000n);
    const token = randomUUID();
    feed.stored(batchFromRecords(batch), token);
    await settled(feed);
    expect((await messagesOf(endpoint.id)).map((m) => m.count)).toEqual([1000, 200]);

    await feed.backfilled(batch, token); // the same batch from the spool: a kill came before its ack
    expect((await messagesOf(endpoint.id)).map((m) => m.count)).toEqual([1000, 200]);
    // The delivery worker merges the never-sent 200 into… nothing (1,200 > 1,000), so merge by hand as it does:
    const [a, b] = await db.sql<{ id: string }[]>`select id from webhook_messages where endpoint_id = ${endpoint.id} order by created_at, id`;
    await db.sql`update webhook_messages set status = 'MERGED', merged_into = ${a?.id ?? ''} where id = ${b?.id ?? ''}`;
    await feed.backfilled(batch, token);
    const rows = await db.sql<{ status: string }[]>`select status from webhook_messages where endpoint_id = ${endpoint.id} order by created_at, id`;
    expect(rows.map((r) => r.status)).toEqual(['PENDING', 'MERGED']);
    expect(feed.metrics()).toMatchObject({ messagesWritten: 2, droppedEvents: 0 });
    await feed.close();
  });
});
