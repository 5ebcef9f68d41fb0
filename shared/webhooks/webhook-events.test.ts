// Invariant: merging analytics.events bodies by splicing gives byte for byte the body
// messageBody would write for the events in order, with the first body's timestamp, whatever the
// events' values hold (the splice marker's own text included).
import { describe, expect, it } from 'vitest';
import { mergeAnalyticsBodies, messageBody } from './webhook-events.ts';

describe('mergeAnalyticsBodies', () => {
  it('equals messageBody of the concatenated events, for tricky values and empty bodies', () => {
    const at = new Date('2026-11-24T10:00:00.000Z');
    const a = [
      { eventId: 'a1', referrer: ',"data":{"events":[' },
      { eventId: 'a2', userAgent: ']}}' },
    ];
    const b: unknown[] = [];
    const c = [{ eventId: 'c1', utmCampaign: 'naïve "quoted" \\ \u2028' }];
    const bodies = [
      messageBody('analytics.events', { events: a }, at),
      messageBody('analytics.events', { events: b }, new Date()),
      messageBody('analytics.events', { events: c }),
    ];
    expect(mergeAnalyticsBodies(bodies)).toBe(messageBody('analytics.events', { events: [...a, ...b, ...c] }, at));
    expect(mergeAnalyticsBodies([bodies[1] as string])).toBe(bodies[1]);
    expect(() => mergeAnalyticsBodies(['{"type":"link.created"}'])).toThrow('not an analytics.events body');
  });
});
