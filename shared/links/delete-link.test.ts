// Invariant: deleteLink removes the organisation's link in one transaction with its tombstone,
// its outbox invalidation and its link.deleted message (the Short URL object as it was); the
// code is then refused to every organisation (TAKEN) and generation draws past it; another
// organisation's or an unknown code is 404 EN001 and changes nothing. Real Postgres.
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test/support/servers.ts';
import { open, webhookFixtures } from '../../test/support/webhook-fixtures.ts';
import { addEndpoint } from '../webhooks/webhook-repository.ts';
import { deleteLink } from './delete-link.ts';
import { findLinkByCode } from './link-repository.ts';
import { saveLink } from './save-link.ts';

// Generated codes come from this queue first when a test fills it (then from the real generator).
const drawn = vi.hoisted(() => ({ queue: [] as string[] }));
vi.mock('./short-code.ts', async (original) => {
  const real = await original<typeof import('./short-code.ts')>();
  return { ...real, generateShortCode: (length?: number) => drawn.queue.shift() ?? real.generateShortCode(length) };
});

let db: TestDatabase;
const { actorOf, deps } = webhookFixtures(() => db.sql);
beforeAll(async () => {
  db = await createTestDatabase(inject('realPgUrl') ?? inject('embeddedPgUrl'));
});
afterAll(async () => db?.drop());

const code = (p: string) => `${p}${Math.random().toString(36).slice(2, 10)}`;

async function errorOf(p: Promise<unknown>): Promise<{ code: string; message: string; details?: unknown }> {
  try {
    await p;
  } catch (err) {
    type Plain = { code: string; message: string; details?: unknown };
    const e = ((err as { errors?: Plain[] }).errors?.[0] ?? err) as Plain;
    return { code: e.code, message: e.message, details: e.details };
  }
  throw new Error('expected a rejection');
}

describe('deleteLink', () => {
  it('removes the link, keeps its code as a tombstone, queues its invalidation and link.deleted with the object as it was', async () => {
    const actor = await actorOf('del-main');
    const { endpoint } = await addEndpoint(db.sql, open, actor.org.id, { url: 'http://127.0.0.1:9/h', eventTypes: ['link.deleted'] });
    const shortCode = code('del');
    const saved = await saveLink(deps(), actor, { url: 'https://e.example/d', shortCode, shortLinkName: 'to go' });
    const [{ n: outboxBefore } = { n: 0 }] = await db.sql<{ n: number }[]>`select count(*)::int as n from invalidation_outbox`;

    const out = await deleteLink(deps(), actor, { shortCode });
    expect(out).toEqual({ view: saved.view, purgedEvents: null });
    expect(await findLinkByCode(db.sql, shortCode)).toBeNull();
    const [tomb] = await db.sql`select org_id, deleted_by from deleted_short_codes where short_code = ${shortCode}`;
    expect(tomb).toEqual({ org_id: actor.org.id, deleted_by: 'api-key:test' });
    const outbox = await db.sql<{ message: string }[]>`select message from invalidation_outbox order by id desc limit 1`;
    const [{ n: outboxAfter } = { n: 0 }] = await db.sql<{ n: number }[]>`select count(*)::int as n from invalidation_outbox`;
    expect(outboxAfter).toBe(outboxBefore + 1);
    expect(outbox[0]?.message).toContain(shortCode);
    const rows = await db.sql<{ type: string; body: string }[]>`select type, body from webhook_messages where endpoint_id = ${endpoint.id}`;
    expect(rows.map((r) => r.type)).toEqual(['link.deleted']);
    expect((JSON.parse(rows[0]!.body) as { data: unknown }).data).toEqual(saved.view);
  });

  it('refuses the deleted code to its own and to every other organisation as TAKEN', async () => {
    const owner = await actorOf('del-owner');
    const other = await actorOf('del-other');
    const shortCode = code('tomb');
    await saveLink(deps(), owner, { url: 'https://e.example/t', shortCode });
    await deleteLink(deps(), owner, { shortCode });
    for (const actor of [owner, other]) {
      const e = await errorOf(saveLink(deps(), actor, { url: 'https://e.example/again', shortCode }));
      expect(e).toMatchObject({ code: 'VE001', details: { field: 'shortCode', reason: 'TAKEN' } });
    }
    expect(await findLinkByCode(db.sql, shortCode)).toBeNull();
  });

  it('a generated code never lands on a deleted one: the draw is taken again', async () => {
    const actor = await actorOf('del-generated');
    const dead = code('Gen');
    await saveLink(deps(), actor, { url: 'https://e.example/g', shortCode: dead });
    await deleteLink(deps(), actor, { shortCode: dead });
    const fresh = code('Fre');
    drawn.queue.push(dead, fresh);
    const created = await saveLink(deps(), actor, { url: 'https://e.example/g2' });
    expect(created.view.shortCode).toBe(fresh);
    expect(drawn.queue).toEqual([]);
  });

  it("answers 404 EN001 for another organisation's link, an unknown code and a deleted one, changing nothing", async () => {
    const owner = await actorOf('del-404-owner');
    const stranger = await actorOf('del-404-stranger');
    const shortCode = code('own');
    await saveLink(deps(), owner, { url: 'https://e.example/o', shortCode });
    const notFound = { code: 'EN001', message: `Short URL with shortCode '${shortCode}' not found` };
    expect(await errorOf(deleteLink(deps(), stranger, { shortCode }))).toMatchObject(notFound);
    expect(await findLinkByCode(db.sql, shortCode)).not.toBeNull();
    expect(await errorOf(deleteLink(deps(), owner, { shortCode: 'nosuchcode1' }))).toMatchObject({ code: 'EN001' });
    await deleteLink(deps(), owner, { shortCode });
    expect(await errorOf(deleteLink(deps(), owner, { shortCode }))).toMatchObject(notFound);
    const [{ n } = { n: 0 }] = await db.sql<{ n: number }[]>`select count(*)::int as n from deleted_short_codes where short_code = ${shortCode}`;
    expect(n).toBe(1);
  });

  it('validates the body: shortCode required (SML002), purgeAnalytics a boolean (VE001), an object body (VE001)', async () => {
    const actor = await actorOf('del-validate');
    expect(await errorOf(deleteLink(deps(), actor, {}))).toMatchObject({ code: 'SML002', message: 'shortCode: must not be empty' });
    expect(await errorOf(deleteLink(deps(), actor, { shortCode: 'abcdefg', purgeAnalytics: 'yes' }))).toMatchObject({
      code: 'VE001',
      message: 'purgeAnalytics: must be of type boolean',
    });
    expect(await errorOf(deleteLink(deps(), actor, [1]))).toMatchObject({ code: 'VE001', message: 'Request body is missing or malformed' });
  });
});
