// The event schema is the single source of every event shape; these tests hold it to the spec's
// table (order and members, written out here once as the expected value) and check that the
// derived shapes agree with it.
import { describe, expect, it } from 'vitest';
import { ENRICHMENT_SOURCES, noEnrichment } from '../enrichment/enrich-hit.ts';
import { analyticsEventSchema, NO_ENRICHMENT, toAnalyticsEvent } from './analytics-event.ts';
import { eventRecord, newOrgId, rawHit } from './analytics-fixtures.ts';
import { batchFromRecords, recordsFromBatch } from './event-batch.ts';
import { ENRICHED_FIELDS, EVENT_FIELDS, EVENT_OBJECT_FIELDS, HIT_FIELDS, INSERTED_FIELDS, LINK_FIELDS, TEXT_FIELDS } from './event-schema.ts';
import { HitBatch } from './hit-batch.ts';

/** The spec's "Analytics event object" table, in its order. */
const SPEC_TABLE = [
  'eventId',
  'schemaVersion',
  'createdAt',
  'shortCode',
  'shortUrlId',
  'eventType',
  'clickSource',
  'referrer',
  'referrerDomain',
  'country',
  'countryCode',
  'city',
  'region',
  'browserName',
  'browserVersion',
  'osName',
  'osVersion',
  'deviceType',
  'deviceBrand',
  'deviceModel',
  'utmSource',
  'utmMedium',
  'utmCampaign',
  'botCategory',
];

describe('event schema', () => {
  it('lists the spec table members in the spec order', () => {
    expect(EVENT_OBJECT_FIELDS).toEqual(SPEC_TABLE);
    expect(Object.keys(analyticsEventSchema.shape)).toEqual(SPEC_TABLE);
  });

  it('has one distinct column per field, and enrichment computes exactly the derived members', () => {
    const columns = Object.values(EVENT_FIELDS).map((f) => f.column);
    expect(new Set(columns).size).toBe(columns.length);
    expect(ENRICHED_FIELDS).toEqual([
      'referrerDomain',
      'country',
      'countryCode',
      'city',
      'region',
      'browserName',
      'browserVersion',
      'osName',
      'osVersion',
      'deviceType',
      'deviceBrand',
      'deviceModel',
      'botCategory',
    ]);
    expect(Object.keys(NO_ENRICHMENT)).toEqual(ENRICHED_FIELDS);
    expect(Object.values(NO_ENRICHMENT).every((v) => v === null)).toBe(true);
    expect(LINK_FIELDS).toEqual(['orgId', 'shortCode', 'shortUrlId', 'utmSource', 'utmMedium', 'utmCampaign']);
    expect(HIT_FIELDS).toEqual(['eventType', 'clickSource', 'referrer']);
    expect(TEXT_FIELDS).toHaveLength(INSERTED_FIELDS.length - 2);
  });

  it("a record built from a hit keeps its link's and its own facts, drops the request-only ones, and gets a UUIDv7 of its millisecond; the API object validates", () => {
    const hit = rawHit({
      orgId: newOrgId(),
      referrer: 'https://r.example/',
      userAgent: 'ua',
      ip: '1.2.3.4',
      utmSource: 'news',
      clickedAtMicros: 1_767_225_600_123_456,
    });
    const batch = new HitBatch();
    batch.push(hit);
    const facts = batch.distinctFacts();
    const enriched = { ...noEnrichment(facts), country: facts.address.map(() => 'France') };
    const [record] = recordsFromBatch(batch.toEventBatch(enriched, ENRICHMENT_SOURCES));
    expect(record).not.toHaveProperty('userAgent');
    expect(record).not.toHaveProperty('ip');
    expect(record).toMatchObject({
      orgId: hit.link.orgId,
      shortUrlId: hit.link.id,
      createdAtMicros: '1767225600123456',
      referrer: 'https://r.example/',
      utmSource: 'news',
      country: 'France',
      city: null,
    });
    expect(record!.eventId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(parseInt(record!.eventId.replace(/-/g, '').slice(0, 12), 16)).toBe(1_767_225_600_123);
    expect(recordsFromBatch(batchFromRecords([record!]))).toEqual([record]);
    const event = toAnalyticsEvent(eventRecord({ orgId: hit.link.orgId, createdAtMicros: '1767225600123456' }));
    expect(Object.keys(event)).toEqual(SPEC_TABLE);
    expect(event.createdAt).toBe('2026-01-01T00:00:00.123456Z');
    expect(event.schemaVersion).toBe(1);
    expect(analyticsEventSchema.safeParse(event).success).toBe(true);
  });
});
