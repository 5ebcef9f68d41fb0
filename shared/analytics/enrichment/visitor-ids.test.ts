// Invariant: a visit's local day is its organisation's (quarter-hour offsets and DST changes
// included), a visitor id changes with it, and a visit gets none without an address, as a
// Do-Not-Track visit its organisation honours, or when its day's salt cannot be had.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CHROME_WINDOWS_UA, isoMicros, newOrgId, rawHit } from '../events/analytics-fixtures.ts';
import { HitBatch } from '../events/hit-batch.ts';
import { DEFAULT_TRACKING, trackingMask, visitMask } from '../model/tracking.ts';
import { MemoryVisitorSalts } from './memory-visitor-salts.ts';
import { LocalDays, VisitorIds, visitorId } from './visitor-ids.ts';

const at = (iso: string) => Number(isoMicros(iso));

describe('LocalDays', () => {
  it("is the zone's calendar day, at +05:45, +05:30 and across Berlin's DST changes", () => {
    const days = new LocalDays();
    expect(days.dayOf('Asia/Kathmandu', at('2026-05-01T18:14:59Z'))).toBe('2026-05-01');
    expect(days.dayOf('Asia/Kathmandu', at('2026-05-01T18:15:00Z'))).toBe('2026-05-02');
    expect(days.dayOf('Asia/Kolkata', at('2026-05-01T18:29:59Z'))).toBe('2026-05-01');
    expect(days.dayOf('Asia/Kolkata', at('2026-05-01T18:30:00Z'))).toBe('2026-05-02');
    expect(days.dayOf('Europe/Berlin', at('2026-03-28T22:59:59Z'))).toBe('2026-03-28');
    expect(days.dayOf('Europe/Berlin', at('2026-03-28T23:00:00Z'))).toBe('2026-03-29');
    expect(days.dayOf('Europe/Berlin', at('2026-10-25T22:59:59Z'))).toBe('2026-10-25');
    expect(days.dayOf('Europe/Berlin', at('2026-10-25T23:00:00Z'))).toBe('2026-10-26');
    expect(days.dayOf('UTC', at('2026-10-25T23:59:59.999999Z'))).toBe('2026-10-25');
  });
});

describe('VisitorIds', () => {
  const orgId = newOrgId();
  const column = async (ids: VisitorIds, hits: ReturnType<typeof rawHit>[]) => {
    const batch = new HitBatch();
    for (const h of hits) batch.push(h);
    const c = await ids.column(batch.visitorFacts());
    return Array.from(c.index.subarray(0, hits.length), (i) => c.values[i] ?? null);
  };

  it('hashes organisation, address and User-Agent under the day’s salt; none without an address or for an honoured DNT', async () => {
    const salts = new MemoryVisitorSalts();
    const ids = new VisitorIds(salts);
    const person = { orgId, ip: '8.8.8.8', userAgent: CHROME_WINDOWS_UA, timeZone: 'Asia/Kathmandu' };
    const anonymous = visitMask(trackingMask({ ...DEFAULT_TRACKING, dnt: true }), true);
    const got = await column(ids, [
      rawHit({ ...person, clickedAtMicros: at('2026-05-01T10:00:00Z') }),
      rawHit({ ...person, clickedAtMicros: at('2026-05-01T18:14:59Z') }), // same local day
      rawHit({ ...person, clickedAtMicros: at('2026-05-01T18:15:00Z') }), // the next one
      rawHit({ ...person, ip: null, clickedAtMicros: at('2026-05-01T10:00:00Z') }),
      rawHit({ ...person, tracking: anonymous, clickedAtMicros: at('2026-05-01T10:00:00Z') }),
    ]);
    expect(got[0]).toMatch(/^[0-9a-f]{16}$/);
    expect(got[1]).toBe(got[0]);
    expect(got[2]).not.toBe(got[0]);
    expect(got.slice(3)).toEqual([null, null]);
    const [salt] = await salts.salts([{ orgId, day: '2026-05-01' }]);
    expect(got[0]).toBe(visitorId(salt as Buffer, orgId, '8.8.8.8', CHROME_WINDOWS_UA));
    // It is HMAC-SHA256 (computed from its key pads): the same digest createHmac gives.
    const hmac = createHmac('sha256', salt as Buffer)
      .update(`${orgId}\0${'8.8.8.8'}\0${CHROME_WINDOWS_UA}`)
      .digest('hex');
    expect(got[0]).toBe(hmac.slice(0, 16));
  });

  it('gives the event loop back while it hashes a batch of new visitors, each still hashed once', async () => {
    const ids = new VisitorIds(new MemoryVisitorSalts());
    const hits = Array.from({ length: 20_000 }, (_, i) => rawHit({ orgId, ip: `10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`, userAgent: CHROME_WINDOWS_UA }));
    let turns = 0;
    let ticking = true;
    const tick = (): void => {
      turns++;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const got = await column(ids, hits);
    ticking = false;
    expect(new Set(got).size).toBe(20_000);
    expect(got.every((v) => typeof v === 'string' && v.length === 16)).toBe(true);
    expect(turns).toBeGreaterThan(5); // 20,000 HMACs take several 0.5 ms slices
  });

  it('gives no visitor when the day’s salt cannot be had', async () => {
    const ids = new VisitorIds({ salts: async (keys) => keys.map(() => null) });
    expect(await column(ids, [rawHit({ orgId, ip: '8.8.8.8', userAgent: CHROME_WINDOWS_UA })])).toEqual([null]);
  });
});
