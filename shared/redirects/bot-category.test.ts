// Invariant: on the corpus of real User-Agents in test/fixtures/user-agents, every browser (in-app
// ones included) is a person (null), every bot is some bot (never null), and each bot file is at
// least 95 % its own category, as is the whole of them. The test names carry the measured shares.
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type BotCategory, classifyUserAgent } from './bot-category.ts';

const CORPUS = resolve(import.meta.dirname, '../../test/fixtures/user-agents');
const CATEGORY_OF_FILE: Record<string, BotCategory | null> = {
  'browsers.txt': null,
  'search-crawler.txt': 'SEARCH_CRAWLER',
  'link-preview.txt': 'LINK_PREVIEW',
  'mail-scanner.txt': 'MAIL_SCANNER',
  'monitor.txt': 'MONITOR',
  'http-library.txt': 'HTTP_LIBRARY',
  'headless.txt': 'HEADLESS',
  'other-bot.txt': 'OTHER_BOT',
};
const MIN_SHARE = 0.95;

/** One User-Agent a line; "#" lines name the sources. */
const userAgents = (file: string): string[] =>
  readFileSync(join(CORPUS, file), 'utf8')
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'));

const percent = (share: number): string => `${(share * 100).toFixed(1)} %`;
const listed = (uas: string[]): string => uas.map((ua) => `  ${classifyUserAgent(ua)} ← ${ua}`).join('\n');

describe('classifyUserAgent on the corpus', () => {
  it('has a file for people and one for each category, and nothing else', () => {
    expect(readdirSync(CORPUS).sort()).toEqual(Object.keys(CATEGORY_OF_FILE).sort());
  });

  const browsers = userAgents('browsers.txt');
  const misjudged = browsers.filter((ua) => classifyUserAgent(ua) !== null);
  it(`browsers.txt: ${browsers.length - misjudged.length}/${browsers.length} browsers are people (null)`, () => {
    expect(browsers.length).toBeGreaterThanOrEqual(150);
    expect(misjudged, `browsers classified as bots:\n${listed(misjudged)}`).toEqual([]);
  });

  const botFiles = Object.entries(CATEGORY_OF_FILE).filter((entry): entry is [string, BotCategory] => entry[1] !== null);
  let total = 0;
  let right = 0;
  for (const [file, category] of botFiles) {
    const uas = userAgents(file);
    const wrong = uas.filter((ua) => classifyUserAgent(ua) !== category);
    total += uas.length;
    right += uas.length - wrong.length;
    const share = (uas.length - wrong.length) / uas.length;
    console.info(`bot-category corpus: ${file} ${percent(share)} ${category} (${uas.length - wrong.length}/${uas.length})`);
    it(`${file}: ${percent(share)} of ${uas.length} are ${category}, none is a person`, () => {
      expect(share, `not ${category}:\n${listed(wrong)}`).toBeGreaterThanOrEqual(MIN_SHARE);
      const people = uas.filter((ua) => classifyUserAgent(ua) === null);
      expect(people, `bots classified as people:\n${listed(people)}`).toEqual([]);
    });
  }
  console.info(`bot-category corpus: all bots ${percent(right / total)} (${right}/${total})`);
  it(`all bot files: ${percent(right / total)} of ${total} in their own category`, () => {
    expect(right / total).toBeGreaterThanOrEqual(MIN_SHARE);
  });
});

describe('classifyUserAgent', () => {
  it.each([
    ['', 'OTHER_BOT'], // browsers always send a User-Agent
    ['node', 'HTTP_LIBRARY'], // Node.js's fetch
    ['curl/8.5.0', 'HTTP_LIBRARY'],
    ['facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)', 'LINK_PREVIEW'],
    [
      'Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/122.0.6261.94 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
      'SEARCH_CRAWLER',
    ],
    ['Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36', null],
  ] as const)('%s → %s', (ua, category) => {
    expect(classifyUserAgent(ua)).toBe(category);
  });

  it('hides from isbot only the fragments that fool it: a bot named elsewhere in the User-Agent still counts', () => {
    // "Spider 8" is a tablet; "AspiegelBot" is Huawei's crawler.
    expect(classifyUserAgent('Mozilla/5.0 (Linux; Android 13; Spider 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36')).toBeNull();
    expect(classifyUserAgent('Mozilla/5.0 (Linux; Android 7.0;) AppleWebKit/537.36 (KHTML, like Gecko) Mobile Safari/537.36 (compatible; AspiegelBot)')).toBe(
      'OTHER_BOT',
    );
  });
});
