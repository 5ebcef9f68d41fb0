// Invariant: the enumerated values an analytics event carries, written once; the event schema,
// the query parsers, the OpenAPI document and the dashboard read them from here. Browser-safe.
export const EVENT_TYPES = ['CLICK', 'METADATA_PREVIEW'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const CLICK_SOURCES = ['DIRECT', 'QR_CODE', 'API', 'EMBED', 'UNKNOWN'] as const;
export type ClickSource = (typeof CLICK_SOURCES)[number];

export const DEVICE_TYPES = ['MOBILE', 'DESKTOP', 'TABLET'] as const;
export type DeviceType = (typeof DEVICE_TYPES)[number];

/** A visit's bot category (null for a person); shared/redirects/bot-category.ts decides it. */
export const BOT_CATEGORIES = ['SEARCH_CRAWLER', 'LINK_PREVIEW', 'MAIL_SCANNER', 'MONITOR', 'HTTP_LIBRARY', 'HEADLESS', 'OTHER_BOT'] as const;
export type BotCategory = (typeof BOT_CATEGORIES)[number];
/** Which visits a read counts: every one (the default), people only (botCategory null), or bots only. */
export const BOTS_FILTERS = ['include', 'exclude', 'only'] as const;
export type BotsFilter = (typeof BOTS_FILTERS)[number];
export const BOTS_FILTER_DESCRIPTION =
  'include: every event (default); exclude: people only (botCategory null); only: bots only (botCategory set). include = exclude + only.';
