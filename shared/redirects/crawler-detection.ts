// Invariant: a User-Agent's bot category (classifyUserAgent: null for a person) is computed once per
// distinct User-Agent of at most 512 characters (the redirector cuts longer ones) and memoised, so
// the memo holds at most MEMO_LIMIT × 1 KiB of keys; a link-preview crawler is exactly the
// LINK_PREVIEW category. The memo also gives each distinct User-Agent one string instance
// (userAgentVerdict): the redirector keeps that one, so every later lookup of it (this memo, the
// analytics batch's dictionary) finds its hash already computed and its key equal by reference,
// and the request's own copy dies young.
import { type BotCategory, classifyUserAgent } from './bot-category.ts';

const MEMO_LIMIT = 10_000;
const MEMO_MAX_KEY_LENGTH = 512;

export interface Verdict {
  /** The first string seen with this value: the one instance kept. */
  readonly text: string;
  readonly bot: BotCategory | null;
}
const memo = new Map<string, Verdict>();

function verdict(userAgent: string): Verdict {
  let v = memo.get(userAgent);
  if (v === undefined) {
    v = { text: userAgent, bot: classifyUserAgent(userAgent) };
    if (memo.size >= MEMO_LIMIT) memo.clear();
    memo.set(userAgent, v);
  }
  return v;
}

/**
 * The one kept instance of this User-Agent's text (itself when longer than the memo keeps) and its
 * bot category: what a request's facts carry, so nothing after reads the memo again.
 */
export function userAgentVerdict(userAgent: string): Verdict {
  return userAgent === '' || userAgent.length > MEMO_MAX_KEY_LENGTH ? { text: userAgent, bot: classifyUserAgent(userAgent) } : verdict(userAgent);
}

/** The visitor's bot category; null for a person. An empty User-Agent is OTHER_BOT. */
export function botCategoryOf(userAgent: string): BotCategory | null {
  return userAgentVerdict(userAgent).bot;
}
