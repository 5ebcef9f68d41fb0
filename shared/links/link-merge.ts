// Invariant: a save request becomes the link's members by one merge onto a base: the defaults
// of a new link (create) or the stored link (update). A member the request leaves out keeps the
// base's value; null clears a text member and keeps a flag; `url` is always the request's. The
// members a request sets as sent are listed once, in SENT_AS_IS, one line each with their rule
// and their value on a new link; those it names by reference (customDomain, deepLinks) or sends
// in a form never stored (password: its argon2id hash) arrive resolved to stored values.
import type { DeepLink, StoredLink } from './link.ts';
import type { SaveLinkRequest } from './link-request.ts';
import type { RuleSpec } from './link-rules.ts';

interface MemberRule<T> {
  /** The value on a new link when the request leaves the member out. */
  readonly initial: T;
  merge(sent: T | null | undefined, base: T): T;
}

/** Absent keeps the base; null clears. */
const clearable = <T>(initial: T | null = null): MemberRule<T | null> => ({ initial, merge: (sent, base) => (sent === undefined ? base : sent) });
/** Absent or null keeps the base. */
const kept = <T>(initial: T): MemberRule<T> => ({ initial, merge: (sent, base) => sent ?? base });

/** Absent keeps the base; null clears to the empty list. */
const list = <T>(): MemberRule<T[]> => ({ initial: [], merge: (sent, base) => (sent === undefined ? base : (sent ?? [])) });

/** Every member a save request sets as sent: one line per member. */
const SENT_AS_IS = {
  shortLinkName: clearable<string>(),
  isActive: kept(true),
  cloakEnabled: kept(false),
  utmSource: clearable<string>(),
  utmMedium: clearable<string>(),
  utmCampaign: clearable<string>(),
  enableCustomMetadata: kept(false),
  customMetadataTitle: clearable<string>(),
  customMetadataDescription: clearable<string>(),
  customMetadataImageUrl: clearable<string>(),
  expiresAt: clearable<string>(),
  maxClicks: clearable<number>(),
  expiredUrl: clearable<string>(),
  rules: list<RuleSpec>(),
} satisfies { [K in keyof SaveLinkRequest & keyof StoredLink]?: MemberRule<StoredLink[K]> };

type SentMember = keyof typeof SENT_AS_IS;
const SENT_MEMBERS = Object.keys(SENT_AS_IS) as SentMember[];

/** The members a save writes (audit members aside). */
export type LinkEdit = Pick<StoredLink, SentMember | 'url' | 'domainId' | 'deepLinks' | 'passwordHash'>;

/** What the request named by reference, resolved; undefined where it named nothing (the base's value stays). */
export interface ResolvedReferences {
  domainId: number | undefined;
  deepLinks: DeepLink[] | undefined;
  /** The new password's hash; null removes the password ("" or null sent). */
  passwordHash: string | null | undefined;
}

/** The base of a create: every member's value on a new link, in the default domain (or none). */
export function newLinkBase(defaultDomainId: number | null): LinkEdit {
  const base = { url: '', domainId: defaultDomainId, deepLinks: [], passwordHash: null } as unknown as Record<string, unknown>;
  for (const member of SENT_MEMBERS) base[member] = SENT_AS_IS[member].initial;
  return base as unknown as LinkEdit;
}

/** The members after the request is applied to `base` (newLinkBase, or the stored link). */
export function mergeLink(base: LinkEdit, req: SaveLinkRequest, refs: ResolvedReferences): LinkEdit {
  const out = {
    url: req.url,
    domainId: refs.domainId ?? base.domainId,
    deepLinks: refs.deepLinks ?? base.deepLinks,
    passwordHash: refs.passwordHash === undefined ? base.passwordHash : refs.passwordHash,
  } as unknown as Record<string, unknown>;
  for (const member of SENT_MEMBERS) {
    const rule = SENT_AS_IS[member] as MemberRule<unknown>;
    out[member] = rule.merge(req[member], base[member]);
  }
  return out as unknown as LinkEdit;
}
