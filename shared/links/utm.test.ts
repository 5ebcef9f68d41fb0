// Invariant: the UTM merge is pinned on hostile and edge-case URLs.
import { describe, expect, it } from 'vitest';
import { applyUtm } from './utm.ts';

const tags = (utmSource: string | null, utmMedium: string | null = null, utmCampaign: string | null = null) => ({ utmSource, utmMedium, utmCampaign });

describe('applyUtm', () => {
  it('returns the URL unchanged without tags', () => {
    expect(applyUtm('https://a.example/p?q=a%20b&flag#f', tags(null))).toBe('https://a.example/p?q=a%20b&flag#f');
    expect(applyUtm('https://a.example/', tags(''))).toBe('https://a.example/');
  });
  it('appends to a URL without query, before the fragment', () => {
    expect(applyUtm('https://a.example/p#sec', tags('s', 'm', 'c'))).toBe('https://a.example/p?utm_source=s&utm_medium=m&utm_campaign=c#sec');
    expect(applyUtm('https://a.example/p?', tags('s'))).toBe('https://a.example/p?utm_source=s');
  });
  it('replaces same-name params in place, drops their duplicates, keeps every other byte', () => {
    expect(applyUtm('https://a.example/?utm_source=x&b=1+2&utm_source=y&flag&c=%2F#h?x=1', tags('new'))).toBe(
      'https://a.example/?utm_source=new&b=1+2&flag&c=%2F#h?x=1',
    );
    expect(applyUtm('https://a.example/?utm%5Fmedium=x', tags(null, 'email'))).toBe('https://a.example/?utm_medium=email');
    expect(applyUtm('https://a.example/?utm_campaign', tags(null, null, 'c'))).toBe('https://a.example/?utm_campaign=c');
  });
  it('encodes values', () => {
    expect(applyUtm('https://a.example/', tags('a&b=c #d', 'é'))).toBe('https://a.example/?utm_source=a%26b%3Dc%20%23d&utm_medium=%C3%A9');
  });
  it('leaves params whose names are not UTM tags alone, even when malformed', () => {
    expect(applyUtm('https://a.example/?%E0%A4%A=1&utm_sourcex=2', tags('s'))).toBe('https://a.example/?%E0%A4%A=1&utm_sourcex=2&utm_source=s');
  });
});
