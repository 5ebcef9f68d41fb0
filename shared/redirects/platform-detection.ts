// Invariant: a User-Agent maps to IOS, ANDROID or OTHER by ua-parser-js 1.x's OS name (and to a
// form factor by its device type), and each
// distinct User-Agent string (its first 512 characters) is parsed at most once while it stays in
// the cache, which is bounded by entries and by bytes.
import UAParser from 'ua-parser-js';
import { LRUCache } from 'lru-cache';
import type { Platform } from '../apps/platform.ts';

/** The visitor's device class: a mobile app platform, or OTHER (served by a WEB app entry). */
export type VisitorPlatform = Exclude<Platform, 'WEB'> | 'OTHER';

/** The visitor's form factor for link rules: ua-parser-js's mobile and tablet, DESKTOP for the rest. */
export type FormFactor = 'MOBILE' | 'TABLET' | 'DESKTOP';

export interface DeviceProfile {
  readonly platform: VisitorPlatform;
  readonly form: FormFactor;
}

const MAX_USER_AGENT_LENGTH = 512;
const UNKNOWN_DEVICE: DeviceProfile = Object.freeze({ platform: 'OTHER', form: 'DESKTOP' });
const cache = new LRUCache<string, DeviceProfile>({ max: 10_000, maxSize: 8 * 1024 * 1024, sizeCalculation: (_profile, ua) => 96 + 2 * ua.length });

function parseDevice(userAgent: string): DeviceProfile {
  const parser = new UAParser(userAgent);
  const os = parser.getOS().name ?? '';
  const type = parser.getDevice().type;
  return {
    platform: os === 'iOS' ? 'IOS' : os === 'Android' ? 'ANDROID' : 'OTHER',
    form: type === 'mobile' ? 'MOBILE' : type === 'tablet' ? 'TABLET' : 'DESKTOP',
  };
}

/** The visitor's platform and form factor, parsed once per distinct User-Agent while cached. */
export function detectDevice(fullUserAgent: string): DeviceProfile {
  if (fullUserAgent === '') return UNKNOWN_DEVICE;
  const userAgent = fullUserAgent.length > MAX_USER_AGENT_LENGTH ? fullUserAgent.slice(0, MAX_USER_AGENT_LENGTH) : fullUserAgent;
  let profile = cache.get(userAgent);
  if (profile === undefined) {
    profile = parseDevice(userAgent);
    cache.set(userAgent, profile);
  }
  return profile;
}

export function detectPlatform(fullUserAgent: string): VisitorPlatform {
  return detectDevice(fullUserAgent).platform;
}
