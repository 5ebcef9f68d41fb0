// Invariant: the visitor's country is looked up only for a link with a country rule, from the
// DB-IP database the analytics enrichment uses (opened on the first such visit, never before), and
// answers at once (from the locator's cache or the open database) once it is open. An address it
// cannot place, or a database that fails to open, reads as no country: the country rules do not hold.
import { GeoLocator } from '../shared/analytics/enrichment/geo-locator.ts';

type Readers = Awaited<ReturnType<GeoLocator['open']>>;

export class VisitorCountry {
  readonly #geo: GeoLocator;
  #readers: Readers | null = null;

  constructor(geo: GeoLocator = new GeoLocator({ cacheEntries: 20_000 })) {
    this.#geo = geo;
  }

  /** The ISO country code of `ip`, or null; a promise only until the database is open. */
  of(ip: string | null): string | null | Promise<string | null> {
    if (ip === null) return null;
    if (this.#readers !== null) return this.#geo.lookupWith(this.#readers, ip).countryCode;
    return this.#geo.open().then(
      (readers) => {
        this.#readers = readers;
        return this.#geo.lookupWith(readers, ip).countryCode;
      },
      () => null,
    );
  }
}
