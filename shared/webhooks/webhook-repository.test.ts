// Invariant: endpoints are refused unless https and public (WEBHOOK_ALLOW_PRIVATE aside) and their
// secrets are sealed at rest with a key, listed by their last 4 characters and revealed only to the
// organisation. Real Postgres.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test/support/servers.ts';
import { open, strict, webhookFixtures } from '../../test/support/webhook-fixtures.ts';
import { addEndpoint, listEndpoints, revealSecret } from './webhook-repository.ts';

let db: TestDatabase;
const { actorOf, closeReceivers } = webhookFixtures(() => db.sql);
beforeAll(async () => {
  db = await createTestDatabase(inject('realPgUrl') ?? inject('embeddedPgUrl'));
});
afterAll(async () => {
  await closeReceivers();
  await db?.drop();
});

describe('endpoints', () => {
  it('refuses a URL that is not https or whose host is private, with a VE001 naming url and why', async () => {
    const { org } = await actorOf('wh-policy');
    const add = (url: string, s = strict) => addEndpoint(db.sql, s, org.id, { url, eventTypes: ['link.created'] });
    await expect(add('http://example.com/hook')).rejects.toMatchObject({ code: 'VE001', details: { field: 'url', reason: 'NOT_HTTPS' } });
    await expect(add('https://127.0.0.1/hook')).rejects.toMatchObject({ code: 'VE001', details: { reason: 'PRIVATE_ADDRESS' } });
    await expect(add('https://[::ffff:10.0.0.1]/hook')).rejects.toMatchObject({ details: { reason: 'PRIVATE_ADDRESS' } });
    await expect(add('https://localhost/hook')).rejects.toMatchObject({ message: expect.stringContaining('private address') });
    await expect(add('not a url')).rejects.toMatchObject({ details: { reason: 'INVALID_URL' } });
    await expect(addEndpoint(db.sql, strict, org.id, { url: 'https://93.184.215.14/h', eventTypes: ['link.nope'] })).rejects.toMatchObject({
      details: { field: 'eventTypes' },
    });
    // WEBHOOK_ALLOW_PRIVATE: http and loopback pass.
    const { endpoint } = await add('http://127.0.0.1:9/hook', open);
    expect(endpoint.url).toBe('http://127.0.0.1:9/hook');
  });

  it('seals the secret at rest, lists its last 4 only, reveals it to whoever may', async () => {
    const { org } = await actorOf('wh-secret');
    const { endpoint, secret } = await addEndpoint(db.sql, open, org.id, { url: 'https://93.184.215.14/h', eventTypes: ['link.created'] });
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    const [row] = await db.sql<{ secret: string }[]>`select secret from webhook_endpoints where id = ${endpoint.id}`;
    expect(row?.secret.startsWith('sealed:v1:')).toBe(true);
    expect(row?.secret).not.toContain(secret.slice(6, 20));
    const listed = await listEndpoints(db.sql, org.id);
    expect(listed).toEqual([expect.objectContaining({ id: endpoint.id, secretLast4: secret.slice(-4) })]);
    expect(JSON.stringify(listed)).not.toContain(secret.slice(6, 20));
    expect(await revealSecret(db.sql, open, org.id, endpoint.id)).toBe(secret);
    // Another organisation never sees it.
    const other = await actorOf('wh-secret-other');
    await expect(revealSecret(db.sql, open, other.org.id, endpoint.id)).rejects.toMatchObject({ code: 'EN001' });
  });
});
