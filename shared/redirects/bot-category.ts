// Invariant: classifyUserAgent is null for a person (any browser, in-app ones included), else the
// first category of CATEGORY_PATTERNS one of whose tokens (case-insensitive substrings) the
// User-Agent contains, else OTHER_BOT when it is empty or isbot calls it a bot once PERSON_FRAGMENTS
// (browser fragments isbot takes for bot names) are cut out. No browser contains a token: the corpus
// in test/fixtures/user-agents pins it. Pure and unmemoised: the caller memoises per User-Agent.
import { isBot } from 'isbot';
import type { BotCategory } from '../analytics/model/event-values.ts';

export { BOT_CATEGORIES, type BotCategory } from '../analytics/model/event-values.ts';

/** Link-preview fetchers of messengers and social networks, by tokens their in-app browsers do not send
 * (search-engine crawlers and in-app browsers keep getting the real redirect). */
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

/** Browsers driven by a program. */
const HEADLESS_TOKENS: readonly string[] = [
  'headlesschrome',
  'phantomjs',
  'slimerjs',
  'htmlunit',
  'jsdom/',
  'puppeteer',
  'playwright',
  'selenium',
  'cypress/',
  ') splash ', // Scrapinghub Splash
];

/** Mail providers' and mail security gateways' fetchers: link scanners, link previews, image proxies. */
const MAIL_SCANNER_TOKENS: readonly string[] = [
  'barracuda', // vendor names: no browser says them, their scanners do when they name themselves
  'mimecast',
  'proofpoint',
  'trend micro',
  'bingpreview', // Outlook.com / Outlook on the web open links of received mail with it
  'googleimageproxy', // Gmail
  'yahoomailproxy',
  'yahoo link preview', // Yahoo Mail
  'ramblermail',
  'seznamemailproxy',
  'mail.ukr.net proxy',
  'fastmailua',
  'shortwave image fetcher',
];

/** Uptime, synthetic and performance monitors; load balancers' health checks. */
const MONITOR_TOKENS: readonly string[] = [
  'uptimerobot',
  'uptimebot',
  'uptime-kuma',
  'pingdom',
  'statuscake',
  'site24x7',
  'better uptime',
  'updown.io',
  'freshping',
  'hetrixtools',
  'nodeping',
  'datadog',
  'newrelicpinger',
  'catchpoint',
  'ruxitsynthetic', // Dynatrace
  'gomezagent', // Dynatrace (Gomez)
  'dejaclick', // AlertSite
  'dmbrowser', // Dotcom-Monitor
  'splunk synthetics',
  '; rigor)', // Rigor (now Splunk)
  'syntheticsagent',
  'yottaamonitor',
  'route53-health-check',
  'elb-healthchecker', // AWS load balancers
  'googlehc/', // Google Cloud load balancers
  'kube-probe/',
  'check_http/', // Nagios / Icinga monitoring-plugins
  'zabbix',
  'monit/',
  'munin/',
  'collectd/',
  'prometheus/',
  'blackbox exporter', // Prometheus
  'xymon',
  'phpservermon',
  'websitepulse',
  'chrome-lighthouse', // Lighthouse, PageSpeed Insights
  'google page speed insights',
  'gtmetrix',
  'ptst/', // WebPageTest, SpeedCurve
];

/** Search engines' crawlers and the crawlers indexing the web for SEO tools and AI models. */
const SEARCH_CRAWLER_TOKENS: readonly string[] = [
  'googlebot', // also Googlebot-Image, -News, -Video
  'google-inspectiontool',
  'googleother',
  'storebot-google',
  'adsbot-google',
  'mediapartners-google',
  'apis-google',
  'bingbot',
  'adidxbot',
  'msnbot',
  'yandex.com/bots', // every Yandex robot links it
  'yandexbot',
  'baiduspider',
  'duckduckbot',
  'duckassistbot',
  'applebot',
  'ahrefsbot',
  'ahrefssiteaudit',
  'semrushbot',
  'gptbot',
  'oai-searchbot',
  'claudebot',
  'claude-searchbot',
  'claude-web/',
  'anthropic-ai',
  'ccbot',
  'perplexitybot',
  'bytespider',
  'amazonbot',
  'amzn-searchbot',
  'petalbot',
  'sogou web spider',
  'sogou pic spider',
  'seznambot',
  'mj12bot',
  'dotbot',
  'yahoo! slurp',
  'qwantbot',
  'qwantify',
  'mojeekbot',
  'coccocbot',
  'yeti/', // Naver
  'daumoa',
  '360spider',
  'exabot',
  'blexbot',
  'barkrowler',
  'seekportbot',
  'dataforseobot',
  'serpstatbot',
  'meta-externalagent',
  'meta-webindexer',
  'bravebot',
  'kagibot',
  'linespider',
  'mail.ru_bot',
  'youdaobot',
  'tiktokspider',
];

/** HTTP client libraries, command-line clients and API tools. */
const HTTP_LIBRARY_TOKENS: readonly string[] = [
  'curl/',
  'wget/',
  'python-requests',
  'python-urllib',
  'python-httpx',
  'aiohttp',
  'go-http-client',
  'java-http-client',
  'okhttp',
  'apache-httpclient',
  'commons-httpclient',
  'node-fetch',
  'undici',
  'axios/',
  'node-superagent',
  'sindresorhus/got',
  'needle/',
  'libwww-perl',
  'guzzlehttp',
  'postmanruntime',
  'insomnia/',
  'httpie/',
  'dart:io', // "Dart/3.5 (dart:io)"
  'reqwest/',
  'powershell/',
  'rest-client/',
  'faraday v',
  'http.rb/',
  'restsharp/',
  'go-resty/',
  'scrapy/',
  'hackney/',
  'lua-resty-http',
  'ocaml-cohttp',
  'php-soap/',
];
/** Names that count only at the start of the User-Agent: feature phones' browsers say "Java/Jbed" further on. */
const HTTP_LIBRARY_LEADING: readonly string[] = ['java/', 'php/', 'bun/', 'deno/'];
/** Whole User-Agents: Node.js's fetch sends "node", Ruby's Net::HTTP "Ruby". */
const HTTP_LIBRARY_WHOLE: readonly string[] = ['node', 'ruby'];

/** People: fragments of browsers' User-Agents that isbot takes for bot names. Cut before asking it, not
 * matched to answer null, so a bot named elsewhere in the User-Agent still counts. */
const PERSON_FRAGMENTS: readonly RegExp[] = [
  // The device model of an Android browser ("Spider 8", "XBot Junior", "Build/CUBOT"); the group before it is kept.
  /^(Mozilla\/5\.0 \(Linux; (?:U; )?Android [^;)]*;(?: [a-z]{2}[-_][a-z]{2};)?)[^;)]+/,
  /Process\/tools/, // WeChat's in-app browser
  /\d{3,}x\d{3,}/, // screen size in Instagram's and Threads' in-app browsers: "1024x720" holds "24x7"
  /Sogou(?:MSE|MobileBrowser|Search)/, // Sogou's mobile browser and search app
  /AlipayDefined\([^)]*\)/, // Alipay's in-app browser: "|" separates its fields
];

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const anyOf = (tokens: readonly string[], leading: readonly string[] = [], whole: readonly string[] = []): RegExp => {
  const parts = tokens.map(escapeRegExp);
  if (leading.length > 0) parts.push(`^(?:${leading.map(escapeRegExp).join('|')})`);
  if (whole.length > 0) parts.push(`^(?:${whole.map(escapeRegExp).join('|')})$`);
  return new RegExp(parts.join('|'), 'i');
};

const CATEGORY_PATTERNS: readonly (readonly [BotCategory, RegExp])[] = [
  ['LINK_PREVIEW', anyOf(PREVIEW_CRAWLER_TOKENS)],
  ['HEADLESS', anyOf(HEADLESS_TOKENS)],
  ['MAIL_SCANNER', anyOf(MAIL_SCANNER_TOKENS)],
  ['MONITOR', anyOf(MONITOR_TOKENS)],
  ['SEARCH_CRAWLER', anyOf(SEARCH_CRAWLER_TOKENS)],
  ['HTTP_LIBRARY', anyOf(HTTP_LIBRARY_TOKENS, HTTP_LIBRARY_LEADING, HTTP_LIBRARY_WHOLE)],
];
/** Any category's token: one pass tells a browser (the common case) from a bot that names itself. */
const ANY_CATEGORY = new RegExp(CATEGORY_PATTERNS.map(([, pattern]) => pattern.source).join('|'), 'i');
const PERSON = new RegExp(PERSON_FRAGMENTS.map((fragment) => fragment.source).join('|'), 'gi');

export function classifyUserAgent(userAgent: string): BotCategory | null {
  if (userAgent.trim() === '') return 'OTHER_BOT';
  if (ANY_CATEGORY.test(userAgent)) for (const [category, pattern] of CATEGORY_PATTERNS) if (pattern.test(userAgent)) return category;
  return isBot(userAgent.replace(PERSON, '$1')) ? 'OTHER_BOT' : null;
}
