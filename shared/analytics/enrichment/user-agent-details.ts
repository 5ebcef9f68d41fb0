// Invariant: a User-Agent string maps to the same UserAgentDetails every time (ua-parser-js 1.x,
// MIT; never v2, which is AGPL). deviceType is MOBILE or TABLET when the parser says mobile or
// tablet; when the parser names no device type, a known desktop operating system (Windows, macOS,
// Linux distributions, ChromeOS, BSDs…) means DESKTOP; anything else (consoles, TVs, wearables,
// bots, unknown clients) is null. Parses are cached by UA string.
import { LRUCache } from 'lru-cache';
import { UAParser } from 'ua-parser-js';
import type { DeviceType } from '../model/event-values.ts';

export interface UserAgentDetails {
  browserName: string | null;
  browserVersion: string | null;
  osName: string | null;
  osVersion: string | null;
  deviceType: DeviceType | null;
  deviceBrand: string | null;
  deviceModel: string | null;
}

const NO_DETAILS: UserAgentDetails = Object.freeze({
  browserName: null,
  browserVersion: null,
  osName: null,
  osVersion: null,
  deviceType: null,
  deviceBrand: null,
  deviceModel: null,
});

/** OS names (as ua-parser-js 1.x spells them) that imply a desktop or laptop computer. */
const DESKTOP_OS = new Set(
  [
    'Windows',
    'Mac OS',
    'macOS',
    'Linux',
    'Ubuntu',
    'Debian',
    'Fedora',
    'Mint',
    'Arch',
    'Gentoo',
    'CentOS',
    'RedHat',
    'Red Hat',
    'SUSE',
    'openSUSE',
    'Kubuntu',
    'Xubuntu',
    'Lubuntu',
    'Mandriva',
    'Slackware',
    'Chromium OS',
    'Chrome OS',
    'FreeBSD',
    'OpenBSD',
    'NetBSD',
    'DragonFly',
    'Solaris',
    'Unix',
    'Haiku',
    'elementary OS',
    'Manjaro',
    'Deepin',
    'PCLinuxOS',
    'Zenwalk',
  ].map((n) => n.toLowerCase()),
);

const orNull = (v: string | undefined): string | null => (v === undefined || v === '' ? null : v);

function deviceTypeOf(parserType: string | undefined, osName: string | null): DeviceType | null {
  if (parserType === 'mobile') return 'MOBILE';
  if (parserType === 'tablet') return 'TABLET';
  if (parserType !== undefined) return null;
  return osName !== null && DESKTOP_OS.has(osName.toLowerCase()) ? 'DESKTOP' : null;
}

/** Parses one UA string without caching. */
export function parseUserAgent(ua: string): UserAgentDetails {
  const r = new UAParser(ua).getResult();
  const osName = orNull(r.os.name);
  return {
    browserName: orNull(r.browser.name),
    browserVersion: orNull(r.browser.version),
    osName,
    osVersion: orNull(r.os.version),
    deviceType: deviceTypeOf(r.device.type, osName),
    deviceBrand: orNull(r.device.vendor),
    deviceModel: orNull(r.device.model),
  };
}

/** A User-Agent is parsed and memoised from its first 512 characters only (the redirector cuts it there too). */
export const MAX_USER_AGENT_LENGTH = 512;
/** Byte budget of the memo: keys at two bytes a character plus an allowance for the parsed details. */
const CACHE_MAX_BYTES = 16 * 1024 * 1024;
const DETAILS_BYTES = 256;

export class UserAgentCache {
  private readonly cache: LRUCache<string, UserAgentDetails>;

  constructor(entries = 20_000) {
    this.cache = new LRUCache<string, UserAgentDetails>({
      max: entries,
      maxSize: CACHE_MAX_BYTES,
      sizeCalculation: (_details, ua) => 2 * ua.length + DETAILS_BYTES,
    });
  }

  get(userAgent: string | null): UserAgentDetails {
    if (userAgent === null || userAgent.trim() === '') return NO_DETAILS;
    const ua = userAgent.length > MAX_USER_AGENT_LENGTH ? userAgent.slice(0, MAX_USER_AGENT_LENGTH) : userAgent;
    const hit = this.cache.get(ua);
    if (hit) return hit;
    const details = parseUserAgent(ua);
    this.cache.set(ua, details);
    return details;
  }

  get size(): number {
    return this.cache.size;
  }
}
