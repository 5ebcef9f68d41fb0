// Invariant: a User-Agent maps to IOS, ANDROID or OTHER by ua-parser-js 1.x's OS name, and each
// distinct User-Agent string is parsed at most once while it stays in the bounded cache.
import UAParser from 'ua-parser-js';
import { LRUCache } from 'lru-cache';
import type { Platform } from '../shared/apps/platform.ts';

/** The visitor's device class: a mobile app platform, or OTHER (served by a WEB app entry). */
export type VisitorPlatform = Exclude<Platform, 'WEB'> | 'OTHER';

const cache = new LRUCache<string, VisitorPlatform>({ max: 10_000 });

function parsePlatform(userAgent: string): VisitorPlatform {
  const os = new UAParser(userAgent).getOS().name ?? '';
  if (os === 'iOS') return 'IOS';
  if (os === 'Android') return 'ANDROID';
  return 'OTHER';
}

export function detectPlatform(userAgent: string): VisitorPlatform {
  if (userAgent === '') return 'OTHER';
  let platform = cache.get(userAgent);
  if (platform === undefined) {
    platform = parsePlatform(userAgent);
    cache.set(userAgent, platform);
  }
  return platform;
}
