import { describe, expect, it } from 'vitest';
import { parseUserAgent } from '../../shared/analytics/enrichment/user-agent-details.ts';
import { botCategoryOf } from '../../shared/redirects/crawler-detection.ts';
import { publicAddresses, trafficGenerator, USER_AGENTS, zipfSampler } from './traffic.ts';

const visits = Array.from({ length: 50 }, (_, i) => ({ host: 'sho.rt', path: `/code${String(i).padStart(3, '0')}` }));
const requests = (n: number, forwardedFor: boolean, seed = 7): string[] => {
  const next = trafficGenerator({ visits, basePath: '/p', referrer: 'https://run-1.load-kit.invalid/', forwardedFor, seed });
  return Array.from({ length: n }, () => next());
};
const header = (req: string, name: string): string | undefined => new RegExp(`\\r\\n${name}: ([^\\r]*)\\r\\n`, 'i').exec(req)?.[1];

describe('traffic', () => {
  it('formats complete GET requests with the link host, a browser User-Agent and the run marker', () => {
    for (const req of requests(500, false)) {
      expect(req).toMatch(/^GET \/p\/code\d{3} HTTP\/1\.1\r\n(?:[A-Za-z-]+: [^\r\n]+\r\n)+\r\n$/);
      expect(header(req, 'Host')).toBe('sho.rt');
      expect(header(req, 'Referer')).toBe('https://run-1.load-kit.invalid/');
      expect(header(req, 'Sec-Fetch-Mode')).toBe('navigate');
      expect(header(req, 'X-Forwarded-For')).toBeUndefined();
      expect(USER_AGENTS.map(([ua]) => ua)).toContain(header(req, 'User-Agent'));
    }
  });

  it('adds X-Forwarded-For from 10,000 public addresses when asked', () => {
    const seen = new Set(requests(20_000, true).map((r) => header(r, 'X-Forwarded-For')));
    expect(seen.size).toBeGreaterThan(8000);
    const all = publicAddresses(10_000, 7);
    expect(new Set(all).size).toBe(10_000);
    const reserved = new Set([0, 10, 100, 127, 169, 172, 192, 198, 203]);
    const bad = all.filter((a) => {
      const parts = a.split('.').map(Number);
      return parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p > 255) || reserved.has(parts[0]!) || parts[0]! >= 224 || parts[3] === 0;
    });
    expect(bad).toEqual([]);
  });

  it('spreads the User-Agents over real browsers, phones and computers, none a crawler', () => {
    const devices = new Map<string, number>();
    for (const [ua, weight] of USER_AGENTS) {
      expect(botCategoryOf(ua), ua).toBeNull();
      const d = parseUserAgent(ua);
      expect(d.browserName, ua).not.toBeNull();
      expect(d.osName, ua).not.toBeNull();
      devices.set(String(d.deviceType), (devices.get(String(d.deviceType)) ?? 0) + weight);
    }
    const total = [...devices.values()].reduce((a, b) => a + b, 0);
    expect((devices.get('MOBILE') ?? 0) / total).toBeGreaterThan(0.5);
    expect((devices.get('DESKTOP') ?? 0) / total).toBeGreaterThan(0.25);
    expect(devices.get('TABLET') ?? 0).toBeGreaterThan(0);
    const used = new Set(requests(5000, false).map((r) => header(r, 'User-Agent')));
    expect(used.size).toBe(USER_AGENTS.length);
  });

  it('visits the links Zipf-like: the k-th link about 1/k as often as the first', () => {
    const counts = new Map<string, number>();
    for (const r of requests(100_000, false)) {
      const path = r.slice(4, r.indexOf(' ', 4));
      counts.set(path, (counts.get(path) ?? 0) + 1);
    }
    const first = counts.get('/p/code000') ?? 0;
    expect(counts.size).toBe(50);
    expect(first / 100_000).toBeCloseTo(1 / 4.499, 1); // 1 / H(50)
    expect((counts.get('/p/code001') ?? 0) / first).toBeCloseTo(1 / 2, 1);
    expect((counts.get('/p/code009') ?? 0) / first).toBeCloseTo(1 / 10, 1);
    expect(requests(100, false)).toEqual(requests(100, false));
    expect(requests(100, false, 8)).not.toEqual(requests(100, false, 7));
  });

  it('samples ranks in range, the first the most frequent', () => {
    const next = zipfSampler(3, 1);
    const counts = [0, 0, 0];
    for (let i = 0; i < 11_000; i++) counts[next()]!++;
    expect(counts[0]).toBeGreaterThan(counts[1]!);
    expect(counts[1]).toBeGreaterThan(counts[2]!);
    expect(counts[0]! / 11_000).toBeCloseTo(6 / 11, 1);
  });
});
