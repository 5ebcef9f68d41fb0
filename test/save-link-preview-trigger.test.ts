// Invariant: saveLink asks for a destination preview exactly when a save created a link or
// changed its url, naming the organisation; an update that keeps the url asks for nothing.
// Tested against a real migrated database.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { saveLink, type Actor, type LinkServiceDeps } from '../shared/links/save-link.ts';
import { createOrganization } from '../shared/orgs/org-repository.ts';
import { createTestDatabase, type TestDatabase } from './support/servers.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase(inject('realPgUrl') ?? inject('embeddedPgUrl'));
});
afterAll(async () => db?.drop());

describe('saveLink and preview refreshes', () => {
  it('asks on create and on a url change, never on an update that keeps the url', async () => {
    const asked: [string, string][] = [];
    const deps: LinkServiceDeps = { sql: db.sql, shortLinkBase: 'https://sho.rt', now: Date.now, onDestinationSaved: (url, orgId) => asked.push([url, orgId]) };
    const org = await createOrganization(db.sql, { name: 'preview-trigger', plan: 'BUSINESS' });
    const actor: Actor = { org, attribution: 'test', via: 'EXTERNAL' };

    const { view } = await saveLink(deps, actor, { url: 'https://e.example/a', shortLinkName: 'first' });
    expect(asked).toEqual([['https://e.example/a', org.id]]);
    await saveLink(deps, actor, { url: 'https://e.example/a', shortCode: view.shortCode, shortLinkName: 'renamed', isActive: false });
    await saveLink(deps, actor, { url: 'https://e.example/a', shortCode: view.shortCode, cloakEnabled: true });
    expect(asked).toHaveLength(1);
    await saveLink(deps, actor, { url: 'https://e.example/b', shortCode: view.shortCode });
    expect(asked).toEqual([
      ['https://e.example/a', org.id],
      ['https://e.example/b', org.id],
    ]);
    const [row] = await db.sql<{ url: string; short_link_name: string }[]>`select url, short_link_name from links where short_code = ${view.shortCode}`;
    expect(row).toEqual({ url: 'https://e.example/b', short_link_name: 'renamed' });
  });
});
