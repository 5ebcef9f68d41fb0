// Invariant: compiled list filters select exactly the links the DSL describes on every Postgres
// backend, with values bound as parameters (an injection attempt matches nothing).
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestDatabase, postgresBackends, type TestDatabase } from '../../../test/support/servers.ts';
import { parseListQuery } from './list-query-parser.ts';
import { compileListQuery } from './list-query-sql.ts';

const DEFAULT_SHORT_DOMAIN = 'sho.rt';

interface LinkRow {
  code: string;
  org: 'a' | 'b';
  url: string;
  name: string | null;
  domain: 'active' | 'removed' | null;
  isActive: boolean;
  cloak: boolean;
  metadata: boolean;
  createdBy: string;
  updatedBy: string;
  createdVia: 'INTERNAL' | 'EXTERNAL';
  lastModifiedVia: 'INTERNAL' | 'EXTERNAL';
}

const X_URL = 'https://x.com/a?b=c&d=e';

const LINKS: LinkRow[] = [
  {
    code: 'alpha01',
    org: 'a',
    url: X_URL,
    name: 'summer sale',
    domain: 'active',
    isActive: true,
    cloak: false,
    metadata: true,
    createdBy: 'ann@a.test',
    updatedBy: 'api-key:ci',
    createdVia: 'INTERNAL',
    lastModifiedVia: 'EXTERNAL',
  },
  {
    code: 'bravo02',
    org: 'a',
    url: 'https://y.com/',
    name: null,
    domain: null,
    isActive: false,
    cloak: true,
    metadata: false,
    createdBy: 'api-key:ci',
    updatedBy: 'api-key:ci',
    createdVia: 'EXTERNAL',
    lastModifiedVia: 'EXTERNAL',
  },
  {
    code: 'charl03',
    org: 'a',
    url: X_URL,
    name: 'Summer Sale',
    domain: 'removed',
    isActive: true,
    cloak: true,
    metadata: false,
    createdBy: 'bob@a.test',
    updatedBy: 'bob@a.test',
    createdVia: 'INTERNAL',
    lastModifiedVia: 'INTERNAL',
  },
  {
    code: 'delta04',
    org: 'b',
    url: X_URL,
    name: 'summer sale',
    domain: null,
    isActive: true,
    cloak: true,
    metadata: true,
    createdBy: 'api-key:ci',
    updatedBy: 'api-key:ci',
    createdVia: 'INTERNAL',
    lastModifiedVia: 'EXTERNAL',
  },
];

for (const backend of postgresBackends(inject('embeddedPgUrl'), inject('realPgUrl'))) {
  describe(`compileListQuery on ${backend.name}`, () => {
    let db: TestDatabase;
    let orgA = '';

    beforeAll(async () => {
      db = await createTestDatabase(backend.adminUrl);
      const { sql } = db;
      const orgs = await sql<{ id: string }[]>`insert into organizations (name, plan) values ('A', 'PRO'), ('B', 'PRO') returning id`;
      orgA = orgs[0]!.id;
      const orgB = orgs[1]!.id;
      const [active] = await sql<{ id: string }[]>`insert into domains (org_id, host) values (${orgA}, 'go.a.test') returning id`;
      const [removed] = await sql<{ id: string }[]>`
        insert into domains (org_id, host, active, removed_at) values (${orgA}, 'old.a.test', false, now()) returning id`;
      for (const l of LINKS) {
        const domainId = l.domain === 'active' ? active!.id : l.domain === 'removed' ? removed!.id : null;
        await sql`
          insert into links (org_id, short_code, url, short_link_name, domain_id, is_active, cloak_enabled,
                             enable_custom_metadata, created_by, updated_by, created_via, last_modified_via)
          values (${l.org === 'a' ? orgA : orgB}, ${l.code}, ${l.url}, ${l.name}, ${domainId}, ${l.isActive}, ${l.cloak},
                  ${l.metadata}, ${l.createdBy}, ${l.updatedBy}, ${l.createdVia}, ${l.lastModifiedVia})`;
      }
    });

    afterAll(async () => db?.drop());

    async function codes(query: string): Promise<string[]> {
      const { sql } = db;
      const filter = compileListQuery(parseListQuery(query), sql, { shortLinkBase: `https://${DEFAULT_SHORT_DOMAIN}` });
      const rows = await sql<{ short_code: string }[]>`
        select l.short_code
        from links l left join domains d on d.id = l.domain_id and d.active
        where l.org_id = ${orgA} and ${filter}
        order by l.short_code`;
      return rows.map((r) => r.short_code);
    }

    it('matches string fields by exact, case-sensitive equality', async () => {
      expect(await codes(`url=${X_URL}`)).toEqual(['alpha01', 'charl03']);
      expect(await codes('url=https://x.com/a')).toEqual([]);
      expect(await codes('shortCode=alpha01')).toEqual(['alpha01']);
      expect(await codes('shortCode=ALPHA01')).toEqual([]);
      expect(await codes('shortCode=alpha0')).toEqual([]);
      expect(await codes('shortLinkName="summer sale"')).toEqual(['alpha01']);
      expect(await codes('shortLinkName="Summer Sale"')).toEqual(['charl03']);
      expect(await codes('createdBy=api-key:ci')).toEqual(['bravo02']);
      expect(await codes('updatedBy=api-key:ci')).toEqual(['alpha01', 'bravo02']);
    });

    it('matches booleans', async () => {
      expect(await codes('isActive=false')).toEqual(['bravo02']);
      expect(await codes('isActive=TRUE')).toEqual(['alpha01', 'charl03']);
      expect(await codes('cloakEnabled=true')).toEqual(['bravo02', 'charl03']);
      expect(await codes('enableCustomMetadata=true')).toEqual(['alpha01']);
    });

    it('matches enums whatever the letter case', async () => {
      expect(await codes('createdVia=internal')).toEqual(['alpha01', 'charl03']);
      expect(await codes('createdVia=EXTERNAL')).toEqual(['bravo02']);
      expect(await codes('lastModifiedVia=External')).toEqual(['alpha01', 'bravo02']);
      expect(await codes('lastModifiedVia=INTERNAL')).toEqual(['charl03']);
    });

    it('combines with AND, OR (AND binding tighter) and parentheses', async () => {
      expect(await codes('isActive=true AND cloakEnabled=true')).toEqual(['charl03']);
      expect(await codes('isActive=false OR enableCustomMetadata=true')).toEqual(['alpha01', 'bravo02']);
      // alpha01 OR (active AND cloaked = charl03)
      expect(await codes('shortCode=alpha01 OR isActive=true AND cloakEnabled=true')).toEqual(['alpha01', 'charl03']);
      // (alpha01 or the active ones) AND cloaked
      expect(await codes('(shortCode=alpha01 OR isActive=true) AND cloakEnabled=true')).toEqual(['charl03']);
      expect(await codes('(shortCode=alpha01)or(shortCode=bravo02)OR(shortCode=charl03)')).toEqual(['alpha01', 'bravo02', 'charl03']);
      expect(await codes(`url=${X_URL} AND (createdVia=external OR lastModifiedVia=internal)`)).toEqual(['charl03']);
    });

    it('matches smartLink against the active custom domain, else the default short domain', async () => {
      expect(await codes('smartLink=https://go.a.test/alpha01')).toEqual(['alpha01']);
      expect(await codes(`smartLink=https://${DEFAULT_SHORT_DOMAIN}/alpha01`)).toEqual([]);
      expect(await codes(`smartLink=https://${DEFAULT_SHORT_DOMAIN}/bravo02`)).toEqual(['bravo02']);
      // charl03's domain was removed: its smart link falls back to the default short domain.
      expect(await codes(`smartLink=https://${DEFAULT_SHORT_DOMAIN}/charl03`)).toEqual(['charl03']);
      expect(await codes('smartLink=https://old.a.test/charl03')).toEqual([]);
      expect(await codes('smartLink=http://go.a.test/alpha01')).toEqual([]);
      expect(await codes('smartLink=alpha01')).toEqual([]);
      expect(await codes(`smartLink=https://go.a.test/alpha01 OR smartLink=https://${DEFAULT_SHORT_DOMAIN}/bravo02`)).toEqual(['alpha01', 'bravo02']);
    });

    it('binds values as parameters: injection attempts match nothing', async () => {
      expect(await codes(`shortLinkName="x' or '1'='1"`)).toEqual([]);
      expect(await codes(`url=x'or'1'='1`)).toEqual([]);
      expect(await codes(`shortCode="alpha01' --"`)).toEqual([]);
      expect(await codes(`smartLink="https://go.a.test/alpha01' or true --"`)).toEqual([]);
      expect(await codes('shortLinkName="$1"')).toEqual([]);

      const { sql } = db;
      const filter = compileListQuery(parseListQuery(`shortLinkName="x' or '1'='1" OR smartLink=https://e.test/abc`), sql, {
        shortLinkBase: "evil' or true --",
      });
      const described = await sql`select 1 from links l left join domains d on d.id = l.domain_id and d.active where ${filter}`.describe();
      expect(described.string).not.toContain("'1'='1");
      expect(described.string).not.toContain('evil');
      expect(described.string).not.toContain('e.test');
      expect(described.types).toHaveLength(4);
    });

    it('handles a long OR chain', async () => {
      const text = Array.from({ length: 300 }, (_, i) => `shortCode=c${i}`)
        .concat('shortCode=bravo02')
        .join(' OR ');
      expect(await codes(text)).toEqual(['bravo02']);
    });
  });
}
