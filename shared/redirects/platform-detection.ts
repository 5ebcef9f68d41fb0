// Invariant: a User-Agent maps to IOS, ANDROID or OTHER by ua-parser-js 1.x's OS name, and each
// distinct User-Agent string (its first 512 characters) is parsed at most once while it stays in
// the cache, which is bounded by entries and by bytes.
import UAParser from 'ua-parser-js';
import { LRUCache } from 'lru-cache';
import type { Platform } from '../apps/platform.ts';

/** The visitor's device class: a mobile app platform, or OTHER (served by a WEB app entry). */
export type VisitorPlatform = Exclude<Platform, 'WEB'> | 'OTHER';

const MAX_USER_AGENT_LENGTH = 512;
const cache = new LRUCache<string, VisitorPlatform>({ max: 10_000, maxSize: 8 * 1024 * 1024, sizeCalculation: (_platform, ua) => 64 + 2 * ua.length });

function parsePlatform(userAgent: string): VisitorPlatform {
  const os = new UAParser(userAgent).getOS().name ?? '';
  if (os === 'iOS') return 'IOS';
  if (os === 'Android') return 'ANDROID';
  return 'OTHER';
}

export function detectPlatform(fullUserAgent: string): VisitorPlatform {
  if (fullUserAgent === '') return 'OTHER';
  const userAgent = fullUserAgent.length > MAX_USER_AGENT_LENGTH ? fullUserAgent.slice(0, MAX_USER_AGENT_LENGTH) : fullUserAgent;
  let platform = cache.get(userAgent);
  if (platform === undefined) {
    platform = parsePlatform(userAgent);
    cache.set(userAgent, platform);
  }
  return platform;
}
