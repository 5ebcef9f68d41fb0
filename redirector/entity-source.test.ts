import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, inject } from 'vitest';
import { MemoryEntitySource } from '../test/support/memory-entity-source.ts';
import { domainOf, linkOf, mobileAppOf, organizationOf } from '../test/support/model-fixtures.ts';
import { randomCode, seedApp, seedDomain, seedLink, seedOrg } from '../test/support/seed.ts';
import { createTestDatabase, postgresBackends, type TestDatabase } from '../test/support/servers.ts';
import { entitySourceContract } from './entity-source.contract.ts';
import { postgresEntitySource } from './entity-source.ts';

for (const backend of postgresBackends(inject('embeddedPgUrl'), inject('realPgUrl'))) {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase(backend.adminUrl);
  });
  afterAll(async () => db?.drop());
  entitySourceContract(backend.name, () => ({
    source: postgresEntitySource(db.sql),
    addOrg: (plan) => seedOrg(db.sql, plan),
    addLink: async (orgId, url) => (await seedLink(db.sql, { orgId, url })).shortCode,
    addApp: async (orgId, platform) => (await seedApp(db.sql, orgId, platform, 'https://apps.example/1')).mobileAppId,
    addDomain: async (orgId, host, active) => {
      const id = await seedDomain(db.sql, orgId, host);
      if (!active) await db.sql`update domains set active = false, removed_at = now() where id = ${id}`;
    },
  }));
}

entitySourceContract('memory', () => {
  const source = new MemoryEntitySource();
  return {
    source,
    addOrg: async (plan) => {
      const id = randomUUID();
      source.orgMap.set(id, organizationOf(id, plan));
      return id;
    },
    addLink: async (orgId, url) => {
      const shortCode = randomCode();
      source.linkMap.set(shortCode, linkOf({ id: randomUUID(), orgId, shortCode, url }));
      return shortCode;
    },
    addApp: async (orgId, platform) => {
      const app = mobileAppOf(platform, orgId, { mobileAppId: randomCode().slice(0, 12) });
      source.appMap.set(app.mobileAppId, app);
      return app.mobileAppId;
    },
    addDomain: async (orgId, host, active) => {
      source.domainMap.set(host, { ...domainOf(host, orgId), active });
    },
  };
});
