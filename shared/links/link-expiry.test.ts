// Invariant: link.expired is queued exactly once per expiry, in the outbox, with the Short URL
// object as the API answers it: by the sweep once expiresAt passes, by the save that sets it in the
// past, by the sweep once a take leaves the click counter at maxClicks (memory and Redis
// counters); never for a live or archived link; again after a save re-arms it (later expiresAt,
// higher maxClicks), not after a save that leaves it expired; and once when several sweepers run
// at the same time. Real Postgres (and Redis when it runs).
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connectTestRedis, deletePrefixOn, redisTestTargets } from '../../test/support/redis-targets.ts';
import { createTestDatabase, redisTestPrefix, type TestDatabase } from '../../test/support/servers.ts';
import { createOrganization } from '../orgs/org-repository.ts';
import type { LinkClickStore } from '../quotas/link-click-counter.ts';
import { MemoryLinkClickCounter } from '../quotas/memory-link-click-counter.ts';
import { RedisLinkClickCounter } from '../quotas/redis-link-click-counter.ts';
import { addEndpoint } from '../webhooks/webhook-repository.ts';
import { LinkExpirySweep } from './link-expiry.ts';
import { saveLink, type Actor, type LinkServiceDeps } from './save-link.ts';

let db: TestDatabase;
const prefix = redisTestPrefix();
const redisClients = await Promise.all(redisTestTargets().map(async (t) => ({ name: t.name, client: await connectTestRedis(t) })));
beforeAll(async () => {
  db = await createTestDatabase(inject('realPgUrl') ?? inject('embeddedPgUrl'));
});
afterAll(async () => {
  for (const { client } of redisClients) {
    await deletePrefixOn(client, prefix);
    client.disconnect();
  }
  await db?.drop();
});

const counters: [string, () => LinkClickStore][] = [['memory', () => new MemoryLinkClickCounter()]];
for (const { name, client } of redisClients) counters.push([name, () => new RedisLinkClickCounter(client, `${prefix}${Math.random()}:`)]);

interface Fixture {
  actor: Actor;
  deps: LinkServiceDeps;
  clicks: LinkClickStore;
  sweep(o?: { batch?: number }): LinkExpirySweep;
}

/** An organisation with an endpoint that wants link.expired (and link.created), and a save and sweep over `clicks`. */
async function fixture(clicks: LinkClickStore = new MemoryLinkClickCounter()): Promise<Fixture> {
  const org = await createOrganization(db.sql, { name: `expiry-${Math.random()}`, plan: 'BUSINESS' });
  await addEndpoint(db.sql, { allowPrivate: true, secretsKey: undefined }, org.id, {
    url: 'http://127.0.0.1:9/hook',
    eventTypes: ['link.expired', 'link.created'],
  });
  const deps: LinkServiceDeps = { sql: db.sql, shortLinkBase: 'https://sho.rt', now: Date.now, linkClicks: clicks };
  return {
    actor: { org, attribution: 'api-key:test', via: 'EXTERNAL' },
    deps,
    clicks,
    sweep: (o = {}) => new LinkExpirySweep({ sql: db.sql, shortLinkBase: 'https://sho.rt', linkClicks: clicks, ...o }),
  };
}

/** The link.expired messages queued for the short code: their data. */
async function expiredMessages(shortCode: string): Promise<Record<string, unknown>[]> {
  const rows = await db.sql<{ body: string }[]>`
    select body from webhook_messages where type = 'link.expired' and (body::jsonb -> 'data' ->> 'shortCode') = ${shortCode} order by created_at`;
  return rows.map((r) => (JSON.parse(r.body) as { data: Record<string, unknown> }).data);
}

async function linkId(shortCode: string): Promise<string> {
  const [row] = await db.sql<{ id: string }[]>`select id from links where short_code = ${shortCode}`;
  return row?.id ?? '';
}

const soon = (ms: number): string => new Date(Date.now() + ms).toISOString();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('expiry by time', () => {
  it('the sweep queues link.expired once expiresAt passes, with the Short URL object, and never twice', async () => {
    const f = await fixture();
    const { view } = await saveLink(f.deps, f.actor, { url: 'https://a.example/', expiresAt: soon(800) });
    const { view: live } = await saveLink(f.deps, f.actor, { url: 'https://b.example/', expiresAt: soon(3_600_000) });
    const { view: never } = await saveLink(f.deps, f.actor, { url: 'https://c.example/' });
    expect((await f.sweep().sweep()).byTime).toBe(0);
    expect(await expiredMessages(view.shortCode)).toEqual([]);
    await sleep(900);
    await f.sweep().sweep();
    await f.sweep().sweep();
    expect(await expiredMessages(view.shortCode)).toEqual([view]);
    expect(await expiredMessages(live.shortCode)).toEqual([]);
    expect(await expiredMessages(never.shortCode)).toEqual([]);
    // The data is what the API answers for the link (the save's answer, unchanged since).
    expect((await expiredMessages(view.shortCode))[0]).toEqual(JSON.parse(JSON.stringify(view)));
  });

  it('a save that sets expiresAt in the past queues it in the save; the sweep adds nothing', async () => {
    const f = await fixture();
    const { view } = await saveLink(f.deps, f.actor, { url: 'https://past.example/', expiresAt: soon(-60_000) });
    expect(await expiredMessages(view.shortCode)).toEqual([view]);
    const [created] = await db.sql<{ n: number }[]>`
      select count(*)::int as n from webhook_messages where type = 'link.created' and (body::jsonb -> 'data' ->> 'shortCode') = ${view.shortCode}`;
    expect(created?.n).toBe(1);
    await f.sweep().sweep();
    // Saved again with another past expiresAt, or with no change: still the same expiry.
    await saveLink(f.deps, f.actor, { url: 'https://past.example/', shortCode: view.shortCode, expiresAt: soon(-30_000) });
    await saveLink(f.deps, f.actor, { url: 'https://past.example/', shortCode: view.shortCode, shortLinkName: 'renamed' });
    await f.sweep().sweep();
    expect(await expiredMessages(view.shortCode)).toHaveLength(1);
  });

  it('a later expiresAt re-arms it: the next expiry is sent again', async () => {
    const f = await fixture();
    const { view } = await saveLink(f.deps, f.actor, { url: 'https://rearm.example/', expiresAt: soon(-1000) });
    expect(await expiredMessages(view.shortCode)).toHaveLength(1);
    const { view: again } = await saveLink(f.deps, f.actor, { url: 'https://rearm.example/', shortCode: view.shortCode, expiresAt: soon(700) });
    const [row] = await db.sql<{ at: Date | null }[]>`select expired_notified_at as at from links where short_code = ${view.shortCode}`;
    expect(row?.at).toBeNull();
    await f.sweep().sweep();
    expect(await expiredMessages(view.shortCode)).toHaveLength(1);
    await sleep(800);
    await f.sweep().sweep();
    await f.sweep().sweep();
    const sent = await expiredMessages(view.shortCode);
    expect(sent).toHaveLength(2);
    expect(sent[1]).toEqual(again);
  });

  it('an archived link is not sent; restored past its expiry, the restore sends it once', async () => {
    const f = await fixture();
    const { view } = await saveLink(f.deps, f.actor, { url: 'https://arch.example/', expiresAt: soon(600) });
    await saveLink(f.deps, f.actor, { url: 'https://arch.example/', shortCode: view.shortCode, isActive: false });
    await sleep(700);
    await f.sweep().sweep();
    expect(await expiredMessages(view.shortCode)).toEqual([]);
    const { view: restored } = await saveLink(f.deps, f.actor, { url: 'https://arch.example/', shortCode: view.shortCode, isActive: true });
    await f.sweep().sweep();
    expect(await expiredMessages(view.shortCode)).toEqual([restored]);
  });

  it('four sweepers at once, 20 links a batch, round after round, send each of 150 expired links exactly once', async () => {
    const f = await fixture();
    const codes: string[] = [];
    // Saved live, then made due at once: a save that comes after the expiry sends the message
    // itself (on a loaded host 150 saves outlast any fixed lead), and this test is the sweepers'.
    for (let i = 0; i < 150; i++)
      codes.push((await saveLink(f.deps, f.actor, { url: `https://many${i}.example/`, expiresAt: soon(3_600_000) })).view.shortCode);
    await db.sql`update links set expires_at = now() - interval '1 second' where org_id = ${f.actor.org.id} and short_code = any(${codes})`;
    // A sweeper that meets rows the others hold (SKIP LOCKED) sees a short batch and stops for this
    // round, leaving the rest to its next one: rounds of four at once until none finds more.
    let queued = 0;
    for (let round = 0; round < 10; round++) {
      const results = await Promise.all(Array.from({ length: 4 }, () => f.sweep({ batch: 20 }).sweep()));
      const n = results.reduce((sum, r) => sum + r.byTime, 0);
      if (n === 0) break;
      queued += n;
    }
    expect(queued).toBe(150);
    const rows = await db.sql<{ code: string; n: number }[]>`
      select (body::jsonb -> 'data' ->> 'shortCode') as code, count(*)::int as n from webhook_messages
      where type = 'link.expired' and org_id = ${f.actor.org.id} group by 1`;
    expect(rows).toHaveLength(150);
    expect(rows.every((r) => r.n === 1)).toBe(true);
    expect(new Set(rows.map((r) => r.code))).toEqual(new Set(codes));
  });

  it('the due links are found through the partial index', async () => {
    const plan = await db.sql.begin(async (tx) => {
      await tx`set local enable_seqscan = off`;
      return tx<{ 'QUERY PLAN': string }[]>`
        explain select id from links where is_active and expires_at is not null and expires_at <= now() and expired_notified_at is null
        order by expires_at limit 100`;
    });
    expect(plan.map((r) => r['QUERY PLAN']).join('\n')).toContain('links_expiry_due');
  });
});

describe.each(counters)('expiry by clicks (%s counter)', (_name, make) => {
  it('the take that reaches maxClicks makes the sweep send it once; a higher maxClicks re-arms it', async () => {
    const f = await fixture(make());
    const { view } = await saveLink(f.deps, f.actor, { url: 'https://clicks.example/', maxClicks: 3 });
    const id = await linkId(view.shortCode);
    expect(await f.clicks.take([{ linkId: id, max: 3, n: 2 }])).toEqual([2]);
    expect((await f.sweep().sweep()).byClicks).toBe(0);
    expect(await expiredMessages(view.shortCode)).toEqual([]);
    expect(await f.clicks.take([{ linkId: id, max: 3, n: 1 }])).toEqual([1]);
    expect(await f.clicks.take([{ linkId: id, max: 3, n: 5 }])).toEqual([0]);
    await Promise.all([f.sweep().sweep(), f.sweep().sweep(), f.sweep().sweep()]);
    expect(await expiredMessages(view.shortCode)).toEqual([view]);
    expect(await f.clicks.exhausted(100)).toEqual([]);
    // Refused again later (another worker): recorded, found already sent, cleared.
    expect(await f.clicks.take([{ linkId: id, max: 3, n: 1 }])).toEqual([0]);
    expect((await f.sweep().sweep()).byClicks).toBe(0);
    expect(await f.clicks.exhausted(100)).toEqual([]);

    // A higher maxClicks: live again, re-armed, nothing sent; reaching 5 sends it again.
    const { view: raised } = await saveLink(f.deps, f.actor, { url: 'https://clicks.example/', shortCode: view.shortCode, maxClicks: 5 });
    await f.sweep().sweep();
    expect(await expiredMessages(view.shortCode)).toHaveLength(1);
    expect(await f.clicks.take([{ linkId: id, max: 5, n: 2 }])).toEqual([2]);
    await f.sweep().sweep();
    expect(await expiredMessages(view.shortCode)).toEqual([view, raised]);

    // A lower maxClicks, already used up: the same expiry, nothing more.
    await saveLink(f.deps, f.actor, { url: 'https://clicks.example/', shortCode: view.shortCode, maxClicks: 4 });
    await f.sweep().sweep();
    expect(await expiredMessages(view.shortCode)).toHaveLength(2);
  });

  it('a save that raises maxClicks to at most the clicks counted sends it in the save', async () => {
    const f = await fixture(make());
    const { view } = await saveLink(f.deps, f.actor, { url: 'https://raise.example/', maxClicks: 2 });
    const id = await linkId(view.shortCode);
    await f.clicks.take([{ linkId: id, max: 2, n: 2 }]);
    await f.sweep().sweep();
    await saveLink(f.deps, f.actor, { url: 'https://raise.example/', shortCode: view.shortCode, maxClicks: 10 });
    await f.clicks.take([{ linkId: id, max: 10, n: 8 }]);
    // The counter's record is not swept yet; a save lowering the limit finds the expiry itself.
    const { view: lowered } = await saveLink(f.deps, f.actor, { url: 'https://raise.example/', shortCode: view.shortCode, maxClicks: 9 });
    expect(await expiredMessages(view.shortCode)).toEqual([view, lowered]);
    await f.sweep().sweep();
    expect(await expiredMessages(view.shortCode)).toHaveLength(2);
  });

  it('a record written again while the sweep handled it is kept for the next round', async () => {
    const clicks = make();
    await clicks.take([{ linkId: 'x', max: 1, n: 1 }]);
    const [first] = await clicks.exhausted(10);
    await clicks.take([{ linkId: 'x', max: 1, n: 1 }]);
    await clicks.clearExhausted(first ? [first] : []);
    expect((await clicks.exhausted(10)).map((e) => e.linkId)).toEqual(['x']);
    await clicks.clearExhausted(await clicks.exhausted(10));
    expect(await clicks.exhausted(10)).toEqual([]);
  });
});
