// Invariant: the delivery worker signs (verified by the standardwebhooks package, both secrets
// during a rotation), retries with the same webhook-id, honours Retry-After, disables on 410,
// replays with the same ids, never sends one message twice at once, keeps a hanging endpoint to its
// own few slots, and is bounded against slow, huge, redirecting, rebinding and silent receivers.
// Real Postgres, real HTTP.
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test/support/servers.ts';
import { open, webhookFixtures } from '../../test/support/webhook-fixtures.ts';
import { saveLink } from '../links/save-link.ts';
import { PER_ENDPOINT_IN_FLIGHT } from './delivery-claims.ts';
import { replayMessages, sendTestEvent } from './webhook-actions.ts';
import { addEndpoint, listAttempts, listEndpoints, rotateSecret } from './webhook-repository.ts';

let db: TestDatabase;
const { actorOf, receiver, worker, until, waitFor, statusOf, deps, closeReceivers } = webhookFixtures(() => db.sql);
beforeAll(async () => {
  db = await createTestDatabase(inject('realPgUrl') ?? inject('embeddedPgUrl'));
});
afterAll(async () => {
  await closeReceivers();
  await db?.drop();
});

describe('delivery', () => {
  it('signs every attempt so the standardwebhooks package verifies it, with both secrets during a rotation', async () => {
    const actor = await actorOf('wh-sign');
    const r = await receiver();
    const { endpoint, secret } = await addEndpoint(db.sql, open, actor.org.id, { url: r.url, eventTypes: ['link.created'] });
    r.secrets.push(secret);
    await saveLink(deps(), actor, { url: 'https://e.example/s1' });
    const w = worker();
    await until(w, () => r.received.length === 1);
    expect(r.received[0]?.verifiedBy).toEqual([0]);
    const rotated = await rotateSecret(db.sql, open, actor.org.id, endpoint.id);
    r.secrets.push(rotated.secret);
    await saveLink(deps(), actor, { url: 'https://e.example/s2' });
    await until(w, () => r.received.length === 2);
    // Signed with the new and the previous secret: a receiver holding either verifies it.
    expect(r.received[1]?.verifiedBy).toEqual([0, 1]);
    expect(r.unverified).toEqual([]);
    // After the 24 h, only the new one signs.
    await db.sql`update webhook_endpoints set previous_secret_until = now() - interval '1 second' where id = ${endpoint.id}`;
    await sendTestEvent(db.sql, actor.org.id, endpoint.id);
    await until(w, () => r.received.length === 3);
    expect(r.received[2]).toMatchObject({ type: 'webhook.test', verifiedBy: [1] });
  });

  it('retries a failed message (5xx, 3xx, no answer) with the same webhook-id, then delivers; a spent schedule is FAILED', async () => {
    const actor = await actorOf('wh-retry');
    const r = await receiver();
    const answers = [500, 302, 200];
    r.answer = (_req, res) => {
      const status = answers.shift() ?? 200;
      res.writeHead(status, status === 302 ? { location: 'http://127.0.0.1:9/elsewhere' } : {}).end('nope');
    };
    const { endpoint } = await addEndpoint(db.sql, open, actor.org.id, { url: r.url, eventTypes: ['link.created'] });
    await saveLink(deps(), actor, { url: 'https://e.example/r' });
    const w = worker();
    await until(w, () => r.received.length === 3);
    expect(new Set(r.received.map((x) => x.id)).size).toBe(1);
    const id = r.received[0]?.id as string;
    await until(w, async () => (await statusOf(id)) === 'DELIVERED');
    const log = await listAttempts(db.sql, actor.org.id, endpoint.id);
    expect(log.map((a) => a.statusCode)).toEqual([200, 302, 500]);
    expect(log[2]).toMatchObject({ responseBody: 'nope', messageId: id });

    // Always 500: attempts = 1 + the schedule's 3 retries, then FAILED.
    r.answer = (_req, res) => void res.writeHead(500).end();
    await saveLink(deps(), actor, { url: 'https://e.example/r2' });
    await until(w, () => r.received.length === 7);
    const last = r.received[6]?.id as string;
    await until(w, async () => (await statusOf(last)) === 'FAILED');
    // (Other tests' endpoints share the queue: at least these two.)
    expect(w.metrics().delivered).toBeGreaterThanOrEqual(1);
    expect(w.metrics().failed).toBeGreaterThanOrEqual(1);
  });

  it('honours Retry-After on 429 and 503', async () => {
    const actor = await actorOf('wh-retry-after');
    const r = await receiver();
    r.answer = (_req, res) => void res.writeHead(429, { 'retry-after': '120' }).end();
    await addEndpoint(db.sql, open, actor.org.id, { url: r.url, eventTypes: ['link.created'] });
    await saveLink(deps(), actor, { url: 'https://e.example/ra' });
    const w = worker();
    await until(w, () => r.received.length === 1);
    const [row] = await db.sql<{ wait: number }[]>`
      select extract(epoch from next_attempt_at - last_attempt_at)::float8 as wait from webhook_messages where id = ${r.received[0]?.id as string}`;
    expect(row?.wait).toBeGreaterThan(119);
    expect(row?.wait).toBeLessThan(122);
  });

  it('disables the endpoint on 410 and drops its pending messages; enabling takes new ones', async () => {
    const actor = await actorOf('wh-gone');
    const r = await receiver();
    r.answer = (_req, res) => void res.writeHead(410).end();
    const { endpoint } = await addEndpoint(db.sql, open, actor.org.id, { url: r.url, eventTypes: ['link.created'] });
    await saveLink(deps(), actor, { url: 'https://e.example/g1' });
    await saveLink(deps(), actor, { url: 'https://e.example/g2' });
    await worker({ batchSize: 1 }).runOnce();
    const rows = await db.sql<{ status: string }[]>`select status from webhook_messages where endpoint_id = ${endpoint.id}`;
    expect(rows.map((x) => x.status)).toEqual(['DROPPED', 'DROPPED']);
    expect((await listEndpoints(db.sql, actor.org.id))[0]).toMatchObject({ enabled: false, disabledReason: 'GONE' });
    await saveLink(deps(), actor, { url: 'https://e.example/g3' });
    const [n] = await db.sql<{ n: number }[]>`select count(*)::int as n from webhook_messages where endpoint_id = ${endpoint.id}`;
    expect(n?.n).toBe(2); // a disabled endpoint is queued nothing
  });

  it('replays one message, and an endpoint’s time range, with the same ids and bodies', async () => {
    const actor = await actorOf('wh-replay');
    const r = await receiver();
    const { endpoint } = await addEndpoint(db.sql, open, actor.org.id, { url: r.url, eventTypes: ['link.created'] });
    const from = new Date(Date.now() - 1000);
    for (let i = 0; i < 3; i++) await saveLink(deps(), actor, { url: `https://e.example/p${i}` });
    const w = worker();
    await until(w, () => r.received.length === 3);
    const first = r.received.map((x) => ({ id: x.id, body: x.body }));
    expect(await replayMessages(db.sql, actor.org.id, { messageId: first[1]?.id as string })).toEqual([first[1]?.id]);
    await until(w, () => r.received.length === 4);
    expect({ id: r.received[3]?.id, body: r.received[3]?.body }).toEqual(first[1]);
    const again = await replayMessages(db.sql, actor.org.id, { endpointId: endpoint.id, from, to: new Date() });
    expect(new Set(again)).toEqual(new Set(first.map((x) => x.id)));
    await until(w, () => r.received.length === 7);
    expect(
      r.received
        .slice(4)
        .map((x) => x.body)
        .sort(),
    ).toEqual(first.map((x) => x.body).sort());
    expect((await listAttempts(db.sql, actor.org.id, endpoint.id)).filter((a) => a.replay)).toHaveLength(4);
    await expect(replayMessages(db.sql, (await actorOf('wh-replay-other')).org.id, { messageId: first[0]?.id as string })).rejects.toMatchObject({
      code: 'EN001',
    });
  });

  it('two workers at once never send one message twice concurrently, and deliver each once', async () => {
    const actor = await actorOf('wh-two');
    const r = await receiver();
    r.answer = (_req, res) => void setTimeout(() => res.writeHead(200).end(), 20);
    // Four endpoints (each takes 4 attempts at once), so both workers' 8 slots have work.
    for (let e = 0; e < 4; e++) await addEndpoint(db.sql, open, actor.org.id, { url: `${r.url}?e=${e}`, eventTypes: ['link.created'] });
    for (let i = 0; i < 15; i++) await saveLink(deps(), actor, { url: `https://e.example/t${i}` });
    const a = worker({ batchSize: 8 });
    const b = worker({ batchSize: 8 });
    a.start();
    b.start();
    const deadline = Date.now() + 15_000;
    while (r.ids().size < 60 && Date.now() < deadline) await new Promise((res) => setTimeout(res, 50));
    await Promise.all([a.stop(), b.stop()]);
    expect(r.ids().size).toBe(60);
    expect(r.received).toHaveLength(60);
    expect(r.maxInFlight).toBe(1);
    expect(a.metrics().delivered).toBeGreaterThan(0);
    expect(b.metrics().delivered).toBeGreaterThan(0);
  });

  it('a hanging endpoint holds its own few slots only: another endpoint is served meanwhile, and at most 4 of its attempts are open', async () => {
    const actor = await actorOf('wh-hanging');
    const hanging = await receiver();
    let openNow = 0;
    let maxOpen = 0;
    hanging.answer = (_req, res) => {
      openNow++;
      maxOpen = Math.max(maxOpen, openNow);
      res.on('close', () => openNow--); // never answered: closed by the worker's timeout
    };
    const fast = await receiver();
    const slow = await addEndpoint(db.sql, open, actor.org.id, { url: hanging.url, eventTypes: ['link.created'] });
    // More than the 64 due messages a claim of 8 slots looks at: its backlog must not hide the others.
    await db.sql`
      insert into webhook_messages (id, endpoint_id, org_id, type, body)
      select 'msg_hanging_' || g, ${slow.endpoint.id}, ${actor.org.id}, 'webhook.test', '{"type":"webhook.test","timestamp":"2026-11-24T00:00:00.000Z","data":{}}'
      from generate_series(1, 100) g`;
    const w = worker({ batchSize: 8, timeoutMs: 3_000, pollIntervalMs: 50 });
    w.start();
    await waitFor(() => openNow === PER_ENDPOINT_IN_FLIGHT);
    const other = await actorOf('wh-hanging-other');
    const quick = await addEndpoint(db.sql, open, other.org.id, { url: fast.url, eventTypes: ['link.created'] });
    const queued = Date.now();
    for (let i = 0; i < 6; i++) await sendTestEvent(db.sql, other.org.id, quick.endpoint.id);
    await waitFor(() => fast.ids().size === 6);
    const servedMs = Date.now() - queued;
    await w.stop();
    await db.sql`update webhook_endpoints set enabled = false where id = ${slow.endpoint.id}`; // its waiting messages stay out of later tests
    expect(servedMs).toBeLessThan(1_500); // not behind the hanging attempts' 3 s timeout
    expect(maxOpen).toBe(PER_ENDPOINT_IN_FLIGHT);
    expect(hanging.ids().size).toBe(PER_ENDPOINT_IN_FLIGHT); // the others wait their turn, not a slot each
  });
});

describe('bad receivers tie up nothing beyond their own timeout', () => {
  let hostile: Server;
  let base: string;
  const sockets = new Set<Socket>();
  beforeAll(async () => {
    hostile = createServer((req, res) => {
      if (req.url === '/slow') return void setTimeout(() => res.writeHead(200).end(), 60_000);
      if (req.url === '/huge') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        const chunk = Buffer.alloc(64 * 1024, 'x');
        let sent = 0;
        const pump = (): void => {
          while (sent < 100 * 1024 * 1024) {
            sent += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          res.end();
        };
        return pump();
      }
      if (req.url === '/redirect') return void res.writeHead(307, { location: '/ok' }).end();
      if (req.url === '/ok') return void res.writeHead(200).end();
    });
    hostile.on('connection', (s) => {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    });
    await new Promise<void>((resolve) => hostile.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(hostile.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => hostile.close(resolve));
  });

  async function attemptTo(path: string, o: { allowPrivate?: boolean; host?: string } = {}) {
    const actor = await actorOf(`wh-bad-${path.slice(1)}`);
    const { endpoint } = await addEndpoint(db.sql, open, actor.org.id, { url: `${base}${path}`, eventTypes: ['link.created'] });
    if (o.host) await db.sql`update webhook_endpoints set url = ${`http://${o.host}:${new URL(base).port}${path}`} where id = ${endpoint.id}`;
    const id = await sendTestEvent(db.sql, actor.org.id, endpoint.id);
    const started = Date.now();
    await worker({ timeoutMs: 500, allowPrivate: o.allowPrivate ?? true }).runOnce();
    const [attempt] = await listAttempts(db.sql, actor.org.id, endpoint.id);
    return { attempt, ms: Date.now() - started, status: await statusOf(id) };
  }

  it('a receiver that never answers: the attempt ends at its timeout and is retried', async () => {
    const { attempt, ms, status } = await attemptTo('/slow');
    expect(attempt).toMatchObject({ statusCode: null, error: 'no answer within 500 ms' });
    expect(ms).toBeLessThan(3_000);
    expect(status).toBe('PENDING');
  });

  it('a 100 MB answer: 1 KiB is read and kept, the connection dropped', async () => {
    const { attempt, ms, status } = await attemptTo('/huge');
    expect(attempt?.statusCode).toBe(200);
    expect(attempt?.responseBody).toBe('x'.repeat(1024));
    expect(ms).toBeLessThan(3_000);
    expect(status).toBe('DELIVERED');
  });

  it('a redirect is not followed: a failed attempt', async () => {
    const { attempt, status } = await attemptTo('/redirect');
    expect(attempt?.statusCode).toBe(307);
    expect(status).toBe('PENDING');
  });

  it('a host that resolves to a private address at send time (DNS rebinding) is refused at connect', async () => {
    const { attempt, status } = await attemptTo('/ok', { allowPrivate: false, host: 'localhost' });
    expect(attempt).toMatchObject({ statusCode: null, error: expect.stringContaining('non-public address') });
    expect(status).toBe('PENDING');
  });
});
