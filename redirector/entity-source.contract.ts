// Invariant: every EntitySource adapter answers alike: links by short code, organisations by id
// and apps by mobileAppId, each answer holding exactly the keys that exist; custom domains only
// while active, all of them or one host.
import { describe, expect, it } from 'vitest';
import type { Platform } from '../shared/apps/platform.ts';
import type { Plan } from '../shared/orgs/plans.ts';
import type { EntitySource } from './entity-source.ts';

export interface EntitySourceHarness {
  source: EntitySource;
  addOrg(plan: Plan): Promise<string>;
  /** Returns the short code. */
  addLink(orgId: string, url: string): Promise<string>;
  /** Returns the mobileAppId. */
  addApp(orgId: string, platform: Platform): Promise<string>;
  addDomain(orgId: string, host: string, active: boolean): Promise<void>;
}

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

export function entitySourceContract(name: string, harness: () => EntitySourceHarness): void {
  describe(`entity source (${name})`, () => {
    it('answers links, organisations and apps by key, holding exactly the keys that exist', async () => {
      const h = harness();
      const orgId = await h.addOrg('PRO');
      const code = await h.addLink(orgId, 'https://entities.example/a');
      const app = await h.addApp(orgId, 'IOS');
      const links = await h.source.links([code, 'nosuchcode1']);
      expect([...links.keys()]).toEqual([code]);
      expect(links.get(code)).toMatchObject({ shortCode: code, orgId, url: 'https://entities.example/a', destination: 'https://entities.example/a' });
      const orgs = await h.source.orgs([orgId, UNKNOWN_ID]);
      expect([...orgs.keys()]).toEqual([orgId]);
      expect(orgs.get(orgId)).toMatchObject({ id: orgId, plan: 'PRO', suspended: false });
      const apps = await h.source.apps([app, 'nosuchapp123']);
      expect([...apps.keys()]).toEqual([app]);
      expect(apps.get(app)).toMatchObject({ mobileAppId: app, orgId, platform: 'IOS', active: true });
    });

    it('answers custom domains only while active, all of them or one host', async () => {
      const h = harness();
      const orgId = await h.addOrg('BUSINESS');
      const active = `on-${orgId.slice(0, 8)}.entities.test`;
      const removed = `off-${orgId.slice(0, 8)}.entities.test`;
      await h.addDomain(orgId, active, true);
      await h.addDomain(orgId, removed, false);
      const hosts = (await h.source.domains.all()).map((d) => d.host);
      expect(hosts).toContain(active);
      expect(hosts).not.toContain(removed);
      expect(await h.source.domains.one(active)).toMatchObject({ host: active, orgId, active: true });
      expect(await h.source.domains.one(removed)).toBeNull();
      expect(await h.source.domains.one('unknown.entities.test')).toBeNull();
    });
  });
}
