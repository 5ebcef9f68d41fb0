// Invariant: every link change and domain transition queues its event, for each endpoint that
// wants its type, in the transaction of the change (a rollback queues nothing), with the API's
// object as data. Real Postgres.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test/support/servers.ts';
import { open, webhookFixtures } from '../../test/support/webhook-fixtures.ts';
import { addDomainToVerify, recordCheck } from '../domains/domain-verification.ts';
import { saveLink } from '../links/save-link.ts';
import { addEndpoint } from './webhook-repository.ts';

let db: TestDatabase;
const { actorOf, deps, closeReceivers } = webhookFixtures(() => db.sql);
beforeAll(async () => {
  db = await createTestDatabase(inject('realPgUrl') ?? inject('embeddedPgUrl'));
});
afterAll(async () => {
  await closeReceivers();
  await db?.drop();
});

describe('link events', () => {
  it('queues link.created, link.updated, link.archived alone and link.updated on restore, each the Short URL object as answered', async () => {
    const actor = await actorOf('wh-links');
    const { endpoint } = await addEndpoint(db.sql, open, actor.org.id, {
      url: 'http://127.0.0.1:9/h',
      eventTypes: ['link.created', 'link.updated', 'link.archived'],
    });
    const created = await saveLink(deps(), actor, { url: 'https://e.example/a' });
    const code = created.view.shortCode;
    const updated = await saveLink(deps(), actor, { url: 'https://e.example/b', shortCode: code });
    const archived = await saveLink(deps(), actor, { url: 'https://e.example/b', shortCode: code, isActive: false });
    const restored = await saveLink(deps(), actor, { url: 'https://e.example/b', shortCode: code, isActive: true });
    const rows = await db.sql<{ type: string; body: string }[]>`
      select type, body from webhook_messages where endpoint_id = ${endpoint.id} order by created_at, id`;
    expect(rows.map((r) => r.type)).toEqual(['link.created', 'link.updated', 'link.archived', 'link.updated']);
    const bodies = rows.map((r) => JSON.parse(r.body) as { type: string; timestamp: string; data: unknown });
    expect(bodies.map((b) => b.data)).toEqual([created.view, updated.view, archived.view, restored.view]);
    expect(bodies.every((b) => !Number.isNaN(Date.parse(b.timestamp)) && b.timestamp.endsWith('Z'))).toBe(true);
  });

  it('queues nothing when the save rolls back, and nothing for an endpoint that does not want the type', async () => {
    const actor = await actorOf('wh-links-rollback');
    const { endpoint } = await addEndpoint(db.sql, open, actor.org.id, { url: 'http://127.0.0.1:9/h', eventTypes: ['link.archived'] });
    const a = await saveLink(deps(), actor, { url: 'https://e.example/a' });
    await expect(saveLink(deps(), actor, { url: 'https://e.example/a', shortCode: a.view.shortCode, customDomain: 'nope.example' })).rejects.toThrow();
    const [n] = await db.sql<{ n: number }[]>`select count(*)::int as n from webhook_messages where endpoint_id = ${endpoint.id}`;
    expect(n?.n).toBe(0);
  });
});

describe('domain events', () => {
  it('the verifier queues domain.verified at PENDING → ACTIVE and domain.failed once at PENDING → FAILED', async () => {
    const { org } = await actorOf('wh-domains');
    const { endpoint } = await addEndpoint(db.sql, open, org.id, { url: 'http://127.0.0.1:9/h', eventTypes: ['domain.verified', 'domain.failed'] });
    const ok = await addDomainToVerify(db.sql, org, 'verified.wh-test.example');
    const bad = await addDomainToVerify(db.sql, org, 'failed.wh-test.example');
    const check = (verified: boolean) => ({ verified, pointsAtDefault: null, problem: verified ? null : 'no TXT record' });
    await recordCheck(db.sql, ok, check(true), Date.now());
    const later = Date.now() + 8 * 24 * 3600_000;
    await recordCheck(db.sql, bad, check(false), later);
    await recordCheck(db.sql, bad, check(false), later); // FAILED again: no second event
    const rows = await db.sql<
      { type: string; body: string }[]
    >`select type, body from webhook_messages where endpoint_id = ${endpoint.id} order by created_at, id`;
    expect(rows.map((r) => r.type)).toEqual(['domain.verified', 'domain.failed']);
    expect(rows.map((r) => (JSON.parse(r.body) as { data: unknown }).data)).toEqual([
      expect.objectContaining({ host: 'verified.wh-test.example', status: 'ACTIVE' }),
      expect.objectContaining({ host: 'failed.wh-test.example', status: 'FAILED', lastCheckError: 'no TXT record' }),
    ]);
    expect(rows[0]?.body).not.toContain(ok.token as string);
  });
});
