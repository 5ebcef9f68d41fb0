// Invariant: test-only builders of RawHits and EventRecords with valid ids (UUIDv7), exact
// microsecond click times and a fresh organisation per call site, so suites never see each
// other's events in a shared table. Product code never imports this file.
import { randomUUID } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import { NO_ENRICHMENT, type EventRecord, type HitLink } from './analytics-event.ts';
import type { RawHit } from './raw-hit.ts';

export const CHROME_WINDOWS_UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
export const IPHONE_UA =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';

export const newOrgId = (): string => randomUUID();

/** Microseconds of an ISO instant written with up to 6 fraction digits. */
export function isoMicros(iso: string): bigint {
  const m = /^(.*?)(?:\.(\d{1,6}))?Z$/.exec(iso);
  if (!m?.[1]) throw new Error(`bad iso ${iso}`);
  return BigInt(Date.parse(`${m[1]}Z`)) * 1000n + BigInt((m[2] ?? '').padEnd(6, '0') || '0');
}

/** A hit of a link of `orgId`: its own facts and its link's members may be overridden. */
export function rawHit(overrides: Partial<Omit<RawHit, 'link'>> & Partial<HitLink> & { orgId: string }): RawHit {
  const o = overrides;
  return {
    link: {
      orgId: o.orgId,
      id: o.id ?? '11111111-2222-4333-8444-555555555555',
      shortCode: o.shortCode ?? 'summer-sale',
      utmSource: o.utmSource ?? null,
      utmMedium: o.utmMedium ?? null,
      utmCampaign: o.utmCampaign ?? null,
    },
    eventType: o.eventType ?? 'CLICK',
    clickSource: o.clickSource ?? 'DIRECT',
    referrer: o.referrer ?? null,
    userAgent: o.userAgent ?? null,
    ip: o.ip ?? null,
    tracking: o.tracking ?? 0,
    timeZone: o.timeZone ?? 'UTC',
    clickedAtMicros: o.clickedAtMicros ?? Date.now() * 1000,
  };
}

export function eventRecord(overrides: Partial<EventRecord> & { orgId: string }): EventRecord {
  return {
    eventId: uuidv7(),
    createdAtMicros: (BigInt(Date.now()) * 1000n).toString(),
    shortCode: 'summer-sale',
    shortUrlId: '11111111-2222-4333-8444-555555555555',
    eventType: 'CLICK',
    clickSource: 'DIRECT',
    referrer: null,
    ...NO_ENRICHMENT,
    utmSource: null,
    utmMedium: null,
    utmCampaign: null,
    visitorId: null,
    ...overrides,
  } as EventRecord;
}

/** `n` records of one organisation, click times spread from `startMicros` by `stepMicros`. */
export function eventRecords(orgId: string, n: number, startMicros: bigint, stepMicros = 1000n, overrides: Partial<EventRecord> = {}): EventRecord[] {
  return Array.from({ length: n }, (_, i) => eventRecord({ orgId, createdAtMicros: (startMicros + BigInt(i) * stepMicros).toString(), ...overrides }));
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
