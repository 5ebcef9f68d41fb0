// Invariant: a User-Agent is a link-preview crawler exactly when it contains one of the tokens
// below (case-insensitive). The list names unfurlers of messengers and social networks only, by tokens
// their in-app browsers do not send: search-engine crawlers and in-app browsers keep getting the
// real redirect. Answers are memoised per distinct User-Agent of at most 512 characters (the
// redirector cuts longer ones), so the memo holds at most MEMO_LIMIT × 1 KiB of keys. The memo
// also gives each distinct User-Agent one string instance (canonicalUserAgent): the redirector
// keeps that one, so every later lookup of it (this memo, the analytics batch's dictionary) finds
// its hash already computed and its key equal by reference, and the request's own copy dies young.

/** Substrings of the User-Agents of known link-preview fetchers. */
export const PREVIEW_CRAWLER_TOKENS: readonly string[] = [
  'facebookexternalhit', // Facebook, Messenger, Instagram; iMessage and LINE send it too
  'facebookcatalog',
  'facebot',
  'twitterbot', // X/Twitter cards; also sent by iMessage
  'slackbot', // Slackbot-LinkExpanding
  'slack-imgproxy',
  'whatsapp',
  'telegrambot',
  'linkedinbot',
  'discordbot',
  'pinterestbot',
  'pinterest/0.', // Pinterest's preview fetcher ("Pinterest/0.2"); its in-app browser says "[Pinterest/…]"
  'skypeuripreview',
  'imessage',
  'vkshare',
  'redditbot',
  'embedly',
  'iframely',
  'mastodon',
  'bluesky',
  'cardyb', // Bluesky card fetcher
  'google-pagerenderer', // Google Chat / Docs link previews
  'microsoftpreview', // Teams / Outlook previews
];

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const CRAWLER = new RegExp(PREVIEW_CRAWLER_TOKENS.map(escapeRegExp).join('|'), 'i');

const MEMO_LIMIT = 10_000;
const MEMO_MAX_KEY_LENGTH = 512;

interface Verdict {
  /** The first string seen with this value: the one instance kept. */
  readonly text: string;
  readonly crawler: boolean;
}
const memo = new Map<string, Verdict>();

function verdict(userAgent: string): Verdict {
  let v = memo.get(userAgent);
  if (v === undefined) {
    v = { text: userAgent, crawler: CRAWLER.test(userAgent) };
    if (memo.size >= MEMO_LIMIT) memo.clear();
    memo.set(userAgent, v);
  }
  return v;
}

/** The one kept instance of this User-Agent's text (itself when longer than the memo keeps). */
export function canonicalUserAgent(userAgent: string): string {
  return userAgent === '' || userAgent.length > MEMO_MAX_KEY_LENGTH ? userAgent : verdict(userAgent).text;
}

export function isPreviewCrawler(userAgent: string): boolean {
  if (userAgent === '') return false;
  if (userAgent.length > MEMO_MAX_KEY_LENGTH) return CRAWLER.test(userAgent);
  return verdict(userAgent).crawler;
}
