// Invariant: the redirector reads the entities it caches only through this port: links by short
// code, organisations by id and apps by mobileAppId (many keys per call, an absent key missing
// from the answer), and active custom domains (all of them, or one normalised host). Postgres is
// its one production adapter; the resolver never holds a database handle.
import { findAppsByMobileAppIds, type MobileApp } from '../shared/apps/mobile-app-repository.ts';
import type { Sql } from '../shared/db/database.ts';
import type { DomainSource } from '../shared/domains/domain-directory.ts';
import { findActiveDomainByHost, listActiveDomains } from '../shared/domains/domain-repository.ts';
import type { Link } from '../shared/links/link.ts';
import { findLinksByCodes } from '../shared/links/link-repository.ts';
import type { Organization } from '../shared/orgs/organization.ts';
import { findOrganizationsByIds } from '../shared/orgs/org-repository.ts';

export interface EntitySource {
  links(shortCodes: readonly string[]): Promise<ReadonlyMap<string, Link>>;
  orgs(ids: readonly string[]): Promise<ReadonlyMap<string, Organization>>;
  apps(mobileAppIds: readonly string[]): Promise<ReadonlyMap<string, MobileApp>>;
  domains: DomainSource;
}

export function postgresEntitySource(sql: Sql): EntitySource {
  return {
    links: (codes) => findLinksByCodes(sql, codes),
    orgs: (ids) => findOrganizationsByIds(sql, ids),
    apps: (ids) => findAppsByMobileAppIds(sql, ids),
    domains: { all: () => listActiveDomains(sql), one: (host) => findActiveDomainByHost(sql, host) },
  };
}
