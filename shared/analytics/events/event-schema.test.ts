// The event schema is the single source of every event shape; these tests hold it to the spec's
// table (order and members, written out here once as the expected value) and check that the
// derived shapes agree with it.
import { describe, expect, it } from 'vitest';
import { analyticsEventSchema, buildEventRecord, NO_ENRICHMENT, toAnalyticsEvent } from './analytics-event.ts';
import { eventRecord, newOrgId, rawHit } from './analytics-fixtures.ts';
import { ENRICHED_FIELDS, EVENT_FIELDS, EVENT_OBJECT_FIELDS, HIT_FIELDS } from './event-schema.ts';

/** The spec's "Analytics event object" table, in its order. */
const SPEC_TABLE = [
  'eventId', 'schemaVersion', 'createdAt', 'shortCode', 'shortUrlId', 'eventType', 'clickSource', 'referrer', 'referrerDomain',
  'country', 'countryCode', 'city', 'region', 'browserName', 'browserVersion', 'osName', 'osVersion', 'deviceType',
  'deviceBrand', 'deviceModel', 'utmSource', 'utmMedium', 'utmCampaign',
];

describe('event schema', () => {
  it('lists the spec table members in the spec order', () => {
    expect(EVENT_OBJECT_FIELDS).toEqual(SPEC_TABLE);
    expect(Object.keys(analyticsEventSchema.shape)).toEqual(SPEC_TABLE);
  });

  it('has one distinct column per field, and enrichment computes exactly the derived members', () => {
    const columns = Object.values(EVENT_FIELDS).map((f) => f.column);
    expect(new Set(columns).size).toBe(columns.length);
    expect(ENRICHED_FIELDS).toEqual(['referrerDomain', 'country', 'countryCode', 'city', 'region', 'browserName', 'browserVersion', 'osName', 'osVersion', 'deviceType', 'deviceBrand', 'deviceModel']);
    expect(Object.keys(NO_ENRICHMENT)).toEqual(ENRICHED_FIELDS);
    expect(Object.values(NO_ENRICHMENT).every((v) => v === null)).toBe(true);
    expect(HIT_FIELDS).toContain('orgId');
  });

  it('a record built from a hit keeps its raw facts and drops the request-only ones; the API object validates', () => {
    const hit = rawHit({ orgId: newOrgId(), referrer: 'https://r.example/', userAgent: 'ua', ip: '1.2.3.4', utmSource: 'news' });
    const record = buildEventRecord(hit, { ...NO_ENRICHMENT, country: 'France' });
    expect(record).not.toHaveProperty('userAgent');
    expect(record).not.toHaveProperty('ip');
    expect(record).toMatchObject({ orgId: hit.orgId, eventId: hit.eventId, createdAtMicros: hit.createdAtMicros, referrer: 'https://r.example/', utmSource: 'news', country: 'France' });
    const event = toAnalyticsEvent(eventRecord({ orgId: hit.orgId, createdAtMicros: '1767225600123456' }));
    expect(Object.keys(event)).toEqual(SPEC_TABLE);
    expect(event.createdAt).toBe('2026-01-01T00:00:00.123456Z');
    expect(event.schemaVersion).toBe(1);
    expect(analyticsEventSchema.safeParse(event).success).toBe(true);
  });
});
