// Invariant: TEST-ONLY: the redirector's EntitySource over plain maps, for unit tests of the
// resolver and the redirect service without a database. It passes entity-source.contract.ts like
// the Postgres adapter, and counts its calls per kind (each call carries many keys).
import type { MobileApp } from '../../shared/apps/mobile-app-repository.ts';
import type { Domain } from '../../shared/domains/domain-repository.ts';
import type { Link } from '../../shared/links/link.ts';
import type { Organization } from '../../shared/orgs/organization.ts';
import type { EntitySource } from '../../redirector/entity-source.ts';

const pick = <V>(all: ReadonlyMap<string, V>, keys: readonly string[]): Map<string, V> =>
  new Map(keys.flatMap((k) => (all.has(k) ? [[k, all.get(k) as V] as const] : [])));

export class MemoryEntitySource implements EntitySource {
  readonly linkMap = new Map<string, Link>();
  readonly orgMap = new Map<string, Organization>();
  readonly appMap = new Map<string, MobileApp>();
  /** Every custom domain, active or not, by host. */
  readonly domainMap = new Map<string, Domain>();
  readonly calls = { links: 0, orgs: 0, apps: 0, domains: 0 };

  links(codes: readonly string[]): Promise<Map<string, Link>> {
    this.calls.links++;
    return Promise.resolve(pick(this.linkMap, codes));
  }

  orgs(ids: readonly string[]): Promise<Map<string, Organization>> {
    this.calls.orgs++;
    return Promise.resolve(pick(this.orgMap, ids));
  }

  apps(ids: readonly string[]): Promise<Map<string, MobileApp>> {
    this.calls.apps++;
    return Promise.resolve(pick(this.appMap, ids));
  }

  readonly domains = {
    all: (): Promise<Domain[]> => {
      this.calls.domains++;
      return Promise.resolve([...this.domainMap.values()].filter((d) => d.active));
    },
    one: (host: string): Promise<Domain | null> => {
      this.calls.domains++;
      const d = this.domainMap.get(host);
      return Promise.resolve(d?.active ? d : null);
    },
  };
}
