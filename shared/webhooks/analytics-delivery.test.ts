// Invariant: analytics.events messages are composed from the analytics store when they are sent:
// at most 1,000 events a message, at least a second apart per endpoint, every event stored after
// the endpoint began to want them exactly once, in sync order, and none before. Postgres holds a
// message's range, never its events; a retry, a replay and a killed worker's message are sent
// again with the same id and the same events, however many arrived since. Real Postgres, chDB,
// a receiver that verifies every signature.
import { NO_EVENT_FILTERS } from '../analytics/reads/analytics-params.ts';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openChdbStore } from '../../test/support/analytics-stores.ts';
import { createTestDatabase, type TestDatabase } from '../../test/support/servers.ts';
import { removeTestDir } from '../../test/support/test-dirs.ts';
import { open, webhookFixtures } from '../../test/support/webhook-fixtures.ts';
import type { WebhookReceiver } from '../../test/support/webhook-receiver.ts';
import { eventRecords, sleep } from '../analytics/events/analytics-fixtures.ts';
import type { AnalyticsStore } from '../analytics/store/analytics-store.ts';
import { analyticsBody } from './delivery-claims.ts';
import { messageBody } from './webhook-events.ts';
import { replayMessages } from './webhook-actions.ts';
import { addEndpoint, setEndpointEnabled, updateEndpoint } from './webhook-repository.ts';

const SETTLE_MS = 50;
let db: TestDatabase;
let store: AnalyticsStore;
const dir = mkdtempSync(join(process.cwd(), '.tmp', 'analytics-delivery-'));
const { actorOf, receiver, worker, until, closeReceivers } = webhookFixtures(() => db.sql);
const analyticsWorker = (o: Parameters<typeof worker>[0] = {}) => worker({ analytics: store, ...o });

beforeAll(async () => {
  db = await createTestDatabase(inject('realPgUrl') ?? inject('embeddedPgUrl'));
  store = await openChdbStore(join(dir, 'chdb'), { syncSettleMillis: SETTLE_MS });
});
afterAll(async () => {
  await closeReceivers();
  await store?.close();
  await db?.drop();
  removeTestDir(dir);
});

type Events = { events: { eventId: string }[] };
const eventIdsOf = (r: WebhookReceiver, from = 0): string[] => r.received.slice(from).flatMap((x) => (x.data as Events).events.map((e) => e.eventId));
/** `ids` in the store's sync order ((ingestedAt, eventId): within one insert, by id). */
const inSyncOrder = async (orgId: string, ids: readonly string[]): Promise<string[]> => {
  const wanted = new Set(ids);
  const page = await store.sync(orgId, {
    mode: 'sync',
    sinceMicros: 0n,
    afterEventId: null,
    limit: 5000,
    filters: NO_EVENT_FILTERS,
  });
  return page.data.map((e) => e.eventId).filter((id) => wanted.has(id));
};
const store_ = async (orgId: string, n: number): Promise<string[]> => {
  const recs = eventRecords(orgId, n, BigInt(Date.now()) * 1000n - 60_000_000n, 1000n);
  await store.insert(recs, randomUUID());
  return recs.map((r) => r.eventId);
};

describe('analytics.events from the store', () => {
  it('≤ 1,000 events a message, a second apart, every event after the endpoint was added once and in sync order; Postgres holds no event', async () => {
    const actor = await actorOf('feed-order');
    const r = await receiver();
    const before = await store_(actor.org.id, 300);
    await sleep(20);
    const { endpoint, secret } = await addEndpoint(db.sql, open, actor.org.id, { url: r.url, eventTypes: ['analytics.events'] });
    r.secrets.push(secret);
    await sleep(20);
    const stored = [...(await store_(actor.org.id, 1200)), ...(await store_(actor.org.id, 900)), ...(await store_(actor.org.id, 400))];
    const w = analyticsWorker({ pollIntervalMs: 50 });
    w.start();
    const deadline = Date.now() + 20_000;
    while (eventIdsOf(r).length < stored.length && Date.now() < deadline) await sleep(50);
    await sleep(1_300); // nothing more comes
    await w.stop();
    expect(eventIdsOf(r)).toEqual(await inSyncOrder(actor.org.id, stored)); // none of `before`
    expect(eventIdsOf(r).some((id) => before.includes(id))).toBe(false);
    expect(r.received.map((x) => (x.data as Events).events.length)).toEqual([1000, 1000, 500]);
    // A second apart, start to start: each message's timestamp (when it was composed) …
    const stamps = r.received.map((x) => Date.parse((JSON.parse(x.body) as { timestamp: string }).timestamp));
    expect(Math.min(...stamps.slice(1).map((t, i) => t - (stamps[i] as number)))).toBeGreaterThanOrEqual(1000);
    // … and its receipt, the next one sent only once the one before has its answer.
    for (let i = 1; i < r.received.length; i++) expect(r.received[i]?.at).toBeGreaterThan(r.received[i - 1]?.answeredAt as number);
    expect(r.unverified).toEqual([]);
    const rows = await db.sql<{ body: string; event_count: number }[]>`
      select body, event_count from webhook_messages where endpoint_id = ${endpoint.id} order by created_at`;
    expect(rows).toEqual([
      { body: '', event_count: 1000 },
      { body: '', event_count: 1000 },
      { body: '', event_count: 500 },
    ]);
    expect(w.metrics()).toMatchObject({ analyticsMessages: 3, analyticsEvents: 2500 });
  });

  it('a body has the bytes JSON.stringify gives the message', () => {
    const events = [{ eventId: 'a', referrer: 'q " \u2028 😀' }, { eventId: 'b' }];
    const at = Date.parse('2026-11-27T10:00:00.123Z');
    expect(
      analyticsBody(
        at,
        events.map((e) => JSON.stringify(e)),
      ),
    ).toBe(messageBody('analytics.events', { events }, new Date(at)));
  });

  it('a failed message is sent again with its id and its events, however many arrived since; the next one goes on after it', async () => {
    const actor = await actorOf('feed-retry');
    const r = await receiver();
    await addEndpoint(db.sql, open, actor.org.id, { url: r.url, eventTypes: ['analytics.events'] });
    const answers = [500, 200, 200];
    r.answer = (_req, res) => void res.writeHead(answers.shift() ?? 200).end();
    const first = await store_(actor.org.id, 10);
    await sleep(SETTLE_MS * 2);
    const w = analyticsWorker();
    await until(w, () => r.received.length === 1);
    const later = await store_(actor.org.id, 5);
    await sleep(1_100);
    await until(w, () => r.received.length === 3);
    expect(r.received[1]).toMatchObject({ id: r.received[0]?.id, body: r.received[0]?.body });
    expect(eventIdsOf(r, 1)).toEqual(await inSyncOrder(actor.org.id, [...first, ...later]));
    expect(r.received[2]?.id).not.toBe(r.received[0]?.id);
  });

  it("a killed worker's message (its lease ran out) is sent by another with its id and events", async () => {
    const actor = await actorOf('feed-killed');
    const r = await receiver();
    const { endpoint } = await addEndpoint(db.sql, open, actor.org.id, { url: r.url, eventTypes: ['analytics.events'] });
    const first = await store_(actor.org.id, 7);
    await sleep(SETTLE_MS * 2);
    // A worker composed and sent it, then was killed before recording the outcome.
    let hold = true;
    const held: { end(): void }[] = [];
    r.answer = (_req, res) => void (hold ? held.push({ end: () => res.writeHead(503).end() }) : res.writeHead(200).end());
    const killed = analyticsWorker({ timeoutMs: 60_000 });
    const killedRound = killed.runOnce();
    await until(analyticsWorker(), () => r.received.length === 1); // the other worker finds nothing to take meanwhile
    hold = false;
    await store_(actor.org.id, 3);
    await db.sql`update webhook_messages set lease_until = now() - interval '1 second' where endpoint_id = ${endpoint.id}`;
    await db.sql`update webhook_endpoints set next_analytics_at = now() where id = ${endpoint.id}`;
    const other = analyticsWorker();
    await until(other, () => r.received.length === 2);
    expect(r.received[1]).toMatchObject({ id: r.received[0]?.id, body: r.received[0]?.body });
    expect(eventIdsOf(r, 1)).toEqual(await inSyncOrder(actor.org.id, first));
    // The "killed" worker's attempt ends now; its record finds its lease gone and changes nothing.
    for (const h of held) h.end();
    await killedRound;
    expect(await db.sql`select status from webhook_messages where endpoint_id = ${endpoint.id}`).toEqual([{ status: 'DELIVERED' }]);
  });

  it('a replay reads its range again: the same id and body, days later, with more events stored', async () => {
    const actor = await actorOf('feed-replay');
    const r = await receiver();
    await addEndpoint(db.sql, open, actor.org.id, { url: r.url, eventTypes: ['analytics.events'] });
    await store_(actor.org.id, 12);
    await sleep(SETTLE_MS * 2);
    const w = analyticsWorker();
    await until(w, () => r.received.length === 1);
    await store_(actor.org.id, 4);
    expect(await replayMessages(db.sql, actor.org.id, { messageId: r.received[0]?.id as string })).toEqual([r.received[0]?.id]);
    await until(w, () => r.received.length >= 2);
    expect(r.received[1]).toMatchObject({ id: r.received[0]?.id, body: r.received[0]?.body });
  });

  it('a message from before positions (its body stored) is sent as it was', async () => {
    const actor = await actorOf('feed-legacy');
    const r = await receiver();
    const { endpoint } = await addEndpoint(db.sql, open, actor.org.id, { url: r.url, eventTypes: ['analytics.events'] });
    const body = messageBody('analytics.events', { events: [{ eventId: 'legacy-1' }] });
    await db.sql`insert into webhook_messages (id, endpoint_id, org_id, type, body, event_count) values ('msg_legacy', ${endpoint.id}, ${actor.org.id}, 'analytics.events', ${body}, 1)`;
    await until(analyticsWorker(), () => r.received.length === 1);
    expect(r.received[0]).toMatchObject({ id: 'msg_legacy', body });
  });

  it('an endpoint disabled, or not wanting analytics.events, gets none of the events stored meanwhile', async () => {
    const actor = await actorOf('feed-gaps');
    const r = await receiver();
    const { endpoint } = await addEndpoint(db.sql, open, actor.org.id, { url: r.url, eventTypes: ['link.created'] });
    await store_(actor.org.id, 5); // not wanted yet
    await sleep(20);
    await updateEndpoint(db.sql, open, actor.org.id, endpoint.id, { eventTypes: ['link.created', 'analytics.events'] });
    const wanted = await store_(actor.org.id, 3);
    await sleep(SETTLE_MS * 2);
    const w = analyticsWorker();
    await until(w, () => r.received.length === 1);
    await setEndpointEnabled(db.sql, actor.org.id, endpoint.id, false);
    await store_(actor.org.id, 4); // while disabled
    await sleep(20);
    await setEndpointEnabled(db.sql, actor.org.id, endpoint.id, true);
    const after = await store_(actor.org.id, 2);
    await sleep(1_100);
    await until(w, () => r.received.length === 2);
    expect(eventIdsOf(r)).toEqual(await inSyncOrder(actor.org.id, [...wanted, ...after]));
  });
});
