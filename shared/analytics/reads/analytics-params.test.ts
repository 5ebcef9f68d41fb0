// Invariant: the analytics parameter rules, checked without storage: mode selection, the spec's
// verbatim messages, range arithmetic in inclusive days, enum and limit bounds, timestamp forms.
import { describe, expect, it } from 'vitest';
import { AppError } from '../../errors/app-error.ts';
import { NO_EVENT_FILTERS, parseAggregatesQuery, parseEventsQuery, parseExportQuery, type RawQuery } from './analytics-params.ts';
import { encodeBrowseCursor } from './browse-cursor.ts';

function errorOf(result: unknown): { code: string; message: string } {
  if (!(result instanceof AppError))
    throw new Error(`expected an AppError, got ${JSON.stringify(result, (_, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))}`);
  return { code: result.code, message: result.message };
}

const ve = (message: string) => ({ code: 'VE001', message });

describe('parseEventsQuery: mode', () => {
  it('browse with from/to, with defaults', () => {
    expect(parseEventsQuery({ from: '2026-01-01', to: '2026-01-31' })).toEqual({
      mode: 'browse',
      from: '2026-01-01',
      to: '2026-01-31',
      cursor: null,
      limit: 100,
      filters: NO_EVENT_FILTERS,
    });
  });

  it('sync with since (and afterEventId)', () => {
    const id = '01900000-0000-7000-8000-0000000000AA';
    expect(parseEventsQuery({ since: '2026-01-01T00:00:00.5Z', afterEventId: id, limit: '5000' })).toEqual({
      mode: 'sync',
      sinceMicros: 1_767_225_600_500_000n,
      afterEventId: id.toLowerCase(),
      limit: 5000,
      filters: NO_EVENT_FILTERS,
    });
  });

  it('neither → the spec message; both → VE001', () => {
    expect(errorOf(parseEventsQuery({}))).toEqual(ve('Must specify either browse mode (from/to) or sync mode (since) parameters.'));
    expect(errorOf(parseEventsQuery({ limit: '5', afterEventId: 'x' }))).toEqual(
      ve('Must specify either browse mode (from/to) or sync mode (since) parameters.'),
    );
    expect(errorOf(parseEventsQuery({ from: '2026-01-01', to: '2026-01-02', since: '2026-01-01T00:00:00Z' })).code).toBe('VE001');
    expect(errorOf(parseEventsQuery({ from: '2026-01-01', since: '2026-01-01T00:00:00Z' })).code).toBe('VE001');
  });

  it('empty values count as absent', () => {
    expect(errorOf(parseEventsQuery({ from: '', to: '', since: '' })).message).toMatch(/^Must specify/);
    expect(parseEventsQuery({ from: '2026-01-01', to: '2026-01-01', limit: '', shortCode: '' })).toMatchObject({ limit: 100, filters: { shortCode: null } });
  });

  it('half a browse range is VE001', () => {
    expect(errorOf(parseEventsQuery({ from: '2026-01-01' }))).toEqual(ve('Browse mode requires both from and to parameters.'));
    expect(errorOf(parseEventsQuery({ to: '2026-01-01' })).code).toBe('VE001');
  });

  it('format on the list endpoint is VE001 in both modes', () => {
    expect(errorOf(parseEventsQuery({ from: '2026-01-01', to: '2026-01-01', format: 'csv' })).code).toBe('VE001');
    expect(errorOf(parseEventsQuery({ since: '2026-01-01T00:00:00Z', format: 'json' })).code).toBe('VE001');
  });

  it('the other mode’s position parameters are refused', () => {
    expect(errorOf(parseEventsQuery({ from: '2026-01-01', to: '2026-01-01', afterEventId: '01900000-0000-7000-8000-000000000001' })).code).toBe('VE001');
    expect(errorOf(parseEventsQuery({ since: '2026-01-01T00:00:00Z', cursor: 'abc' })).code).toBe('VE001');
  });

  it('a repeated parameter is VE001', () => {
    const q: RawQuery = { from: ['2026-01-01', '2026-01-02'], to: '2026-01-03' };
    expect(errorOf(parseEventsQuery(q))).toEqual(ve("Parameter 'from' must be given at most once."));
  });
});

describe('parseEventsQuery: browse range', () => {
  it('counts inclusive days: 186 is fine, 187 is not', () => {
    expect(parseEventsQuery({ from: '2026-01-01', to: '2026-07-05' })).toMatchObject({ mode: 'browse' }); // 186 days
    expect(errorOf(parseEventsQuery({ from: '2026-01-01', to: '2026-07-06' }))).toEqual(ve('Date range cannot exceed 186 days. Requested range: 187 days.'));
    expect(errorOf(parseEventsQuery({ from: '2025-01-01', to: '2026-01-01' }))).toEqual(ve('Date range cannot exceed 186 days. Requested range: 366 days.'));
  });

  it('a single day is a 1-day range; from after to is VE001', () => {
    expect(parseEventsQuery({ from: '2026-01-31', to: '2026-01-31' })).toMatchObject({ mode: 'browse' });
    expect(errorOf(parseEventsQuery({ from: '2026-02-01', to: '2026-01-31' }))).toEqual(
      ve('Invalid date range: from (2026-02-01) must not be after to (2026-01-31).'),
    );
  });

  it('bad dates are VE001', () => {
    for (const bad of ['2026-02-30', '2026-13-01', '26-01-01', '2026-01-01T00:00:00Z', 'yesterday']) {
      expect(errorOf(parseEventsQuery({ from: bad, to: '2026-03-01' }))).toEqual(ve(`Invalid date '${bad}' for parameter 'from'. Expected YYYY-MM-DD.`));
    }
    expect(parseEventsQuery({ from: '2024-02-29', to: '2024-03-01' })).toMatchObject({ mode: 'browse' });
  });

  it('cursor round-trips; a forged cursor is VE001', () => {
    const cursor = encodeBrowseCursor({ createdAtMicros: 1_767_225_600_000_001n, eventId: '01900000-0000-7000-8000-000000000001' });
    expect(parseEventsQuery({ from: '2026-01-01', to: '2026-01-01', cursor })).toMatchObject({
      cursor: { createdAtMicros: 1_767_225_600_000_001n, eventId: '01900000-0000-7000-8000-000000000001' },
    });
    for (const bad of ['!!', 'e30', Buffer.from('["x","y"]').toString('base64url')]) {
      expect(errorOf(parseEventsQuery({ from: '2026-01-01', to: '2026-01-01', cursor: bad })).code).toBe('VE001');
    }
  });
});

describe('parseEventsQuery: limit and filters', () => {
  it('limit: default 100, 1..5000; out of bounds SML002, not a number VE001', () => {
    const base = { from: '2026-01-01', to: '2026-01-01' };
    expect(parseEventsQuery({ ...base, limit: '1' })).toMatchObject({ limit: 1 });
    expect(parseEventsQuery({ ...base, limit: '5000' })).toMatchObject({ limit: 5000 });
    expect(errorOf(parseEventsQuery({ ...base, limit: '0' }))).toEqual({ code: 'SML002', message: 'limit: must be between 1 and 5000' });
    expect(errorOf(parseEventsQuery({ ...base, limit: '5001' }))).toEqual({ code: 'SML002', message: 'limit: must be between 1 and 5000' });
    expect(errorOf(parseEventsQuery({ since: '2026-01-01T00:00:00Z', limit: '-3' })).code).toBe('SML002');
    expect(errorOf(parseEventsQuery({ ...base, limit: '10.5' })).code).toBe('VE001');
    expect(errorOf(parseEventsQuery({ ...base, limit: 'ten' })).code).toBe('VE001');
  });

  it('enum filters: case-insensitive, invalid values listed', () => {
    const base = { from: '2026-01-01', to: '2026-01-01' };
    expect(parseEventsQuery({ ...base, clickSource: 'qr_code', eventType: 'Metadata_Preview', shortCode: 'abc-1234' })).toMatchObject({
      filters: { clickSource: 'QR_CODE', eventType: 'METADATA_PREVIEW', shortCode: 'abc-1234' },
    });
    expect(errorOf(parseEventsQuery({ ...base, clickSource: 'EMAIL' }))).toEqual(
      ve("Invalid value 'EMAIL' for enum ClickSource. Valid values: DIRECT, QR_CODE, API, EMBED, UNKNOWN"),
    );
    expect(errorOf(parseEventsQuery({ since: '2026-01-01T00:00:00Z', eventType: 'VIEW' }))).toEqual(
      ve("Invalid value 'VIEW' for enum EventType. Valid values: CLICK, METADATA_PREVIEW"),
    );
  });

  it('bots: include by default, include|exclude|only in any case, on every read; anything else is VE001', () => {
    const base = { from: '2026-01-01', to: '2026-01-01' };
    expect(parseEventsQuery(base)).toMatchObject({ filters: { bots: 'include' } });
    expect(parseEventsQuery({ ...base, bots: 'EXCLUDE' })).toMatchObject({ filters: { bots: 'exclude' } });
    expect(parseEventsQuery({ since: '2026-01-01T00:00:00Z', bots: 'only' })).toMatchObject({ filters: { bots: 'only' } });
    expect(parseExportQuery({ ...base, bots: 'Only' })).toMatchObject({ filters: { bots: 'only' } });
    expect(parseAggregatesQuery({ ...base, groupBy: 'time', bots: 'exclude' })).toMatchObject({ filters: { bots: 'exclude' } });
    for (const parse of [parseEventsQuery, parseExportQuery, (q: RawQuery) => parseAggregatesQuery({ ...q, groupBy: 'time' })])
      expect(errorOf(parse({ ...base, bots: 'false' }))).toEqual(ve("Invalid value 'false' for parameter 'bots'. Valid values: include, exclude, only"));
  });
});

describe('parseEventsQuery: since', () => {
  it('accepts …Z, …±hh:mm and zone-less UTC, with up to 6 fraction digits', () => {
    const micros = (since: string): bigint => {
      const r = parseEventsQuery({ since });
      if (r instanceof AppError || r.mode !== 'sync') throw new Error('not sync');
      return r.sinceMicros;
    };
    expect(micros('2026-01-01T00:00:00Z')).toBe(1_767_225_600_000_000n);
    expect(micros('2026-01-01T00:00:00')).toBe(1_767_225_600_000_000n);
    expect(micros('2026-01-01T01:00:00+01:00')).toBe(1_767_225_600_000_000n);
    expect(micros('2025-12-31T19:00:00.123456-05:00')).toBe(1_767_225_600_123_456n);
  });

  it('rejects other forms, and an afterEventId that is not an event ID', () => {
    for (const bad of ['2026-01-01', 'now', '2026-01-01 00:00:00Z', '2026-02-30T00:00:00Z', '1767225600']) {
      expect(errorOf(parseEventsQuery({ since: bad })).code).toBe('VE001');
    }
    expect(errorOf(parseEventsQuery({ since: '2026-01-01T00:00:00Z', afterEventId: 'evt-1' })).code).toBe('VE001');
  });
});

describe('parseExportQuery', () => {
  it('from/to with format json (default) or csv', () => {
    expect(parseExportQuery({ from: '2026-01-01', to: '2026-01-02' })).toEqual({
      mode: 'export',
      from: '2026-01-01',
      to: '2026-01-02',
      format: 'json',
      filters: NO_EVENT_FILTERS,
    });
    expect(parseExportQuery({ from: '2026-01-01', to: '2026-01-02', format: 'CSV', eventType: 'click' })).toMatchObject({
      format: 'csv',
      filters: { eventType: 'CLICK' },
    });
  });

  it('since → the decided message, also together with from/to', () => {
    expect(errorOf(parseExportQuery({ since: '2026-01-01T00:00:00Z' }))).toEqual(ve('since is not allowed on export; use from/to'));
    expect(errorOf(parseExportQuery({ from: '2026-01-01', to: '2026-01-02', since: '2026-01-01T00:00:00Z' }))).toEqual(
      ve('since is not allowed on export; use from/to'),
    );
  });

  it('range errors as in browse; unknown format, missing range, paging parameters are VE001', () => {
    expect(errorOf(parseExportQuery({ from: '2026-01-01', to: '2026-12-31' }))).toEqual(ve('Date range cannot exceed 186 days. Requested range: 365 days.'));
    expect(errorOf(parseExportQuery({ from: '2026-01-02', to: '2026-01-01' })).code).toBe('VE001');
    expect(errorOf(parseExportQuery({ from: '2026-01-01', to: '2026-01-02', format: 'xml' }))).toEqual(
      ve("Invalid value 'xml' for parameter 'format'. Valid values: json, csv"),
    );
    expect(errorOf(parseExportQuery({}))).toEqual(ve('Export requires from and to parameters.'));
    expect(errorOf(parseExportQuery({ from: '2026-01-01', to: '2026-01-02', limit: '10' })).code).toBe('VE001');
    expect(errorOf(parseExportQuery({ from: '2026-01-01', to: '2026-01-02', cursor: 'abc' })).code).toBe('VE001');
  });
});

describe('parseAggregatesQuery', () => {
  const range = { from: '2026-01-01', to: '2026-01-31' };
  const filters = {
    shortCode: null,
    clickSource: null,
    eventType: 'CLICK',
    countryCode: null,
    deviceType: null,
    referrerDomain: null,
    browserName: null,
    osName: null,
    utmSource: null,
    utmMedium: null,
    utmCampaign: null,
    botCategory: null,
    bots: 'include',
  };

  it('groupBy time: interval defaults to hour up to 2 inclusive days, else day; eventType defaults to CLICK', () => {
    expect(parseAggregatesQuery({ ...range, groupBy: 'time' })).toEqual({
      mode: 'aggregates',
      ...range,
      groupBy: 'time',
      interval: 'day',
      limit: null,
      metric: 'events',
      filters,
    });
    expect(parseAggregatesQuery({ from: '2026-01-01', to: '2026-01-02', groupBy: 'time' })).toMatchObject({ interval: 'hour' });
    expect(parseAggregatesQuery({ from: '2026-01-01', to: '2026-01-01', groupBy: 'time' })).toMatchObject({ interval: 'hour' });
    expect(parseAggregatesQuery({ from: '2026-01-01', to: '2026-01-03', groupBy: 'time' })).toMatchObject({ interval: 'day' });
    expect(parseAggregatesQuery({ ...range, groupBy: 'TIME', interval: 'Week' })).toMatchObject({ groupBy: 'time', interval: 'week' });
  });

  it('metric: events by default, visitors on request (any case), anything else VE001 naming both', () => {
    expect(parseAggregatesQuery({ ...range, groupBy: 'time', metric: 'Visitors' })).toMatchObject({ metric: 'visitors' });
    expect(parseAggregatesQuery({ ...range, groupBy: 'shortCode', metric: 'events' })).toMatchObject({ metric: 'events' });
    expect(errorOf(parseAggregatesQuery({ ...range, groupBy: 'time', metric: 'people' }))).toEqual({
      code: 'VE001',
      message: "Invalid value 'people' for parameter 'metric'. Valid values: events, visitors",
    });
  });

  it('dimensions: limit defaults to 10, at most 100 (SML002); filters normalised', () => {
    expect(parseAggregatesQuery({ ...range, groupBy: 'countryCode' })).toMatchObject({ groupBy: 'countryCode', interval: null, limit: 10 });
    expect(parseAggregatesQuery({ ...range, groupBy: 'utmSource', limit: '100' })).toMatchObject({ limit: 100 });
    expect(errorOf(parseAggregatesQuery({ ...range, groupBy: 'utmSource', limit: '101' }))).toEqual({
      code: 'SML002',
      message: 'limit: must be between 1 and 100',
    });
    expect(errorOf(parseAggregatesQuery({ ...range, groupBy: 'utmSource', limit: '0' })).code).toBe('SML002');
    expect(errorOf(parseAggregatesQuery({ ...range, groupBy: 'utmSource', limit: 'ten' })).code).toBe('VE001');
    expect(
      parseAggregatesQuery({ ...range, groupBy: 'osName', countryCode: 'de', deviceType: 'mobile', referrerDomain: 'T.co', eventType: 'metadata_preview' }),
    ).toMatchObject({ filters: { countryCode: 'DE', deviceType: 'MOBILE', referrerDomain: 't.co', eventType: 'METADATA_PREVIEW' } });
  });

  it('a missing or bad groupBy, a bad interval or enum filter → VE001 listing the valid values', () => {
    const groups = 'time, shortCode, countryCode, deviceType, browserName, osName, referrerDomain, clickSource, utmSource, utmMedium, utmCampaign, botCategory';
    expect(errorOf(parseAggregatesQuery(range))).toEqual(ve(`Parameter 'groupBy' is required. Valid values: ${groups}`));
    expect(errorOf(parseAggregatesQuery({ ...range, groupBy: 'city' }))).toEqual(ve(`Invalid value 'city' for parameter 'groupBy'. Valid values: ${groups}`));
    expect(errorOf(parseAggregatesQuery({ ...range, groupBy: 'time', interval: 'minute' }))).toEqual(
      ve("Invalid value 'minute' for parameter 'interval'. Valid values: hour, day, week, month"),
    );
    expect(errorOf(parseAggregatesQuery({ ...range, groupBy: 'time', deviceType: 'WATCH' }))).toEqual(
      ve("Invalid value 'WATCH' for enum DeviceType. Valid values: MOBILE, DESKTOP, TABLET"),
    );
    expect(errorOf(parseAggregatesQuery({ ...range, groupBy: 'time', clickSource: 'X' })).code).toBe('VE001');
    expect(errorOf(parseAggregatesQuery({ ...range, groupBy: 'countryCode', interval: 'day' })).code).toBe('VE001');
    expect(errorOf(parseAggregatesQuery({ ...range, groupBy: 'time', limit: '5' })).code).toBe('VE001');
  });

  it('range errors are Browse’s', () => {
    for (const q of [
      { from: '2026-01-01', to: '2026-07-06' },
      { from: '2026-01-10', to: '2026-01-02' },
      { from: '2026-02-30', to: '2026-03-01' },
    ]) {
      expect(errorOf(parseAggregatesQuery({ ...q, groupBy: 'time' }))).toEqual(errorOf(parseEventsQuery(q)));
    }
    expect(errorOf(parseAggregatesQuery({ groupBy: 'time', from: '2026-01-01' })).code).toBe('VE001');
    expect(errorOf(parseAggregatesQuery({ groupBy: 'time', since: '2026-01-01T00:00:00Z' })).code).toBe('VE001');
  });
});
