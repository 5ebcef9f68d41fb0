// Invariant: every create or update of a link, from the API or the admin CLI, goes through
// saveLink: validate → check references (domain, apps) → check plan features → one
// transaction (TAKEN/RESERVED, a deleted link's code TAKEN too, quota, write, the link's
// invalidation queued in the outbox, and its webhook event: link.created, link.archived when it
// archives, else link.updated; then link.expired when the save leaves an active link expired,
// once per expiry (link-expiry.ts)).
// The request is merged onto the defaults (create) or the locked stored row (update) by
// mergeLink; `url` is always required. The answer is built from the row the write returned and
// the apps already loaded: nothing is read again after the commit. Only a create or a changed
// url asks for the destination's preview.
import { hashPassword } from '../accounts/passwords.ts';
import { findApps, type MobileApp } from '../apps/mobile-app-repository.ts';
import { enqueueInvalidations } from '../bus/invalidation-outbox.ts';
import { shortLinkBase } from '../config/config.ts';
import type { Sql } from '../db/database.ts';
import type { Tx } from '../db/sql.ts';
import { findActiveDomain, findPrimaryDomain } from '../domains/domain-repository.ts';
import { AppError, AppErrorList } from '../errors/app-error.ts';
import { customDomainInactive, deepLinkRejected, shortCodeRejected } from '../errors/domain-errors.ts';
import { featureNotAvailable } from '../orgs/plan-errors.ts';
import type { Organization } from '../orgs/organization.ts';
import { planHasFeature, suggestFeatureUpgrade } from '../orgs/plans.ts';
import type { LinkClickCounter } from '../quotas/link-click-counter.ts';
import { consumeLinkSlot } from '../quotas/link-quota.ts';
import { enqueueWebhookEvent, type WebhookEventType } from '../webhooks/webhook-events.ts';
import type { ChangeSource, DeepLink, Link } from './link.ts';
import { queueLinkExpired, rearmLinkExpiry } from './link-expiry.ts';
import { mergeLink, newLinkBase, type ResolvedReferences } from './link-merge.ts';
import { insertLink, isDeletedShortCode, lockLinkByCode, updateLink } from './link-repository.ts';
import { parseSaveLinkRequest, type DeepLinkRequest, type SaveLinkRequest } from './link-request.ts';
import { toLinkResponse, type LinkResponse } from './link-response.ts';
import { generateShortCode, isReservedShortCode, isValidShortCode } from './short-code.ts';

export interface Actor {
  org: Organization;
  /** `api-key:<label>` or an e-mail address. */
  attribution: string;
  via: ChangeSource;
}

export interface LinkServiceDeps {
  sql: Sql;
  shortLinkBase: string;
  /**
   * Called after a committed save that created the link or changed its url, with that URL and the
   * organisation, to refresh the destination's preview in the background.
   */
  onDestinationSaved?(url: string, orgId: string): void;
  now(): number;
  /** The per-link click counters (maxClicks) the redirector uses, for resolve; default: this process's memory. */
  linkClicks?: LinkClickCounter;
}

/**
 * The save's dependencies in a process: its Postgres, the short-link base its configuration
 * names, the wall clock, and (where previews are fetched) the preview trigger. The API and the
 * admin CLI (and any other front end) build them here, so a save answers alike whichever made it.
 */
export function linkServiceDeps(
  sql: Sql,
  config: Parameters<typeof shortLinkBase>[0],
  o: { onDestinationSaved?: (url: string, orgId: string) => void; now?: () => number; linkClicks?: LinkClickCounter } = {},
): LinkServiceDeps {
  return { sql, shortLinkBase: shortLinkBase(config), onDestinationSaved: o.onDestinationSaved, now: o.now ?? Date.now, linkClicks: o.linkClicks };
}

export interface SaveOutcome {
  view: LinkResponse;
  created: boolean;
}

async function resolveDeepLinks(
  sql: Sql,
  org: Organization,
  entries: readonly DeepLinkRequest[],
): Promise<{ stored: DeepLink[]; apps: Map<string, MobileApp> }> {
  for (const e of entries) {
    if (e.mobileAppId === null || e.mobileAppId === undefined || e.mobileAppId.trim() === '') throw deepLinkRejected(e.mobileAppId ?? null);
  }
  const ids = entries.map((e) => e.mobileAppId as string);
  const apps = await findApps(sql, org.id, ids);
  const stored = entries.map((e): DeepLink => {
    const app = apps.get(e.mobileAppId as string);
    if (!app?.active) throw deepLinkRejected(e.mobileAppId as string);
    return {
      appRowId: app.appId,
      mobileAppId: app.mobileAppId,
      deeplinkUrl: e.deeplinkUrl ?? null,
      fallbackUrl: e.fallbackUrl ?? null,
      linkBehaviour: e.linkBehaviour ?? null,
      fallbackEnabled: e.fallbackEnabled ?? false,
    };
  });
  return { stored, apps };
}

interface Prepared {
  req: SaveLinkRequest;
  refs: ResolvedReferences;
  /** The apps of the request's deep links; null when the request keeps the stored entries. */
  apps: Map<string, MobileApp> | null;
}

async function prepare(deps: LinkServiceDeps, actor: Actor, body: unknown): Promise<Prepared> {
  const parsed = parseSaveLinkRequest(body);
  if (!parsed.ok) throw new AppErrorList(parsed.errors);
  const req = parsed.value;
  if (req.shortCode !== undefined && req.shortCode !== null && !isValidShortCode(req.shortCode)) throw shortCodeRejected('FORMAT');

  let domainId: number | undefined;
  if (req.customDomain !== undefined && req.customDomain !== null) {
    const domain = await findActiveDomain(deps.sql, actor.org.id, req.customDomain);
    if (!domain) throw customDomainInactive(req.customDomain);
    domainId = domain.id;
  }
  // Absent or null keeps the stored entries; [] clears them.
  const deepLinks = req.deepLinks ? await resolveDeepLinks(deps.sql, actor.org, req.deepLinks) : null;
  if (req.enableCustomMetadata === true && !planHasFeature(actor.org.plan, 'METADATA_PREVIEW')) {
    throw featureNotAvailable('METADATA_PREVIEW', actor.org.plan, suggestFeatureUpgrade(actor.org.plan, 'METADATA_PREVIEW'));
  }
  // "" or null removes the password; hashed here, before the transaction (argon2id takes tens of ms).
  const passwordHash = req.password === undefined ? undefined : req.password === null || req.password === '' ? null : await hashPassword(req.password);
  return { req, refs: { domainId, deepLinks: deepLinks?.stored, passwordHash }, apps: deepLinks?.apps ?? null };
}

interface Written {
  link: Link;
  apps: ReadonlyMap<string, MobileApp>;
  created: boolean;
  urlChanged: boolean;
  event: WebhookEventType;
  /** An update that changed expiresAt or maxClicks. */
  expiryChanged: boolean;
}

/** Clicks counted for the link; 0 when the counter cannot say (a later refused visit finds the expiry then). */
async function countedClicks(deps: LinkServiceDeps, linkId: string): Promise<number> {
  try {
    return (await deps.linkClicks?.count(linkId)) ?? 0;
  } catch {
    return 0;
  }
}

export async function saveLink(deps: LinkServiceDeps, actor: Actor, body: unknown): Promise<SaveOutcome> {
  const prepared = await prepare(deps, actor, body);
  const { req, refs } = prepared;
  const requested = req.shortCode ?? null;
  const primary = refs.domainId === undefined ? await findPrimaryDomain(deps.sql, actor.org.id) : null;
  const by = { updatedBy: actor.attribution, lastModifiedVia: actor.via };

  const written = await deps.sql.begin(async (tx) => {
    const w = await write(tx);
    // The change's webhook event, in its transaction: the Short URL object as the API answers it.
    const view = toLinkResponse(w.link, w.apps, { shortLinkBase: deps.shortLinkBase, includeAppId: true });
    await enqueueWebhookEvent(tx, actor.org.id, w.event, view);
    // link.expired once per expiry: sent here when the save leaves an active link expired; a save
    // that changes the expiry and leaves the link live re-arms it.
    const l = w.link;
    const expired =
      (l.expiresAtMs !== null && l.expiresAtMs <= deps.now()) || (w.expiryChanged && l.maxClicks !== null && (await countedClicks(deps, l.id)) >= l.maxClicks);
    if (!expired && w.expiryChanged) await rearmLinkExpiry(tx, l.id);
    if (expired && l.isActive) await queueLinkExpired(tx, l, view);
    return { ...w, view };
  });

  // An update that keeps the url fetches nothing: the destination's preview is already known.
  if (written.urlChanged) deps.onDestinationSaved?.(req.url, actor.org.id);
  return { view: written.view, created: written.created };

  async function write(tx: Tx): Promise<Written> {
    for (let attempt = 0; attempt < 8; attempt++) {
      const code = requested ?? generateShortCode();
      const existing = await lockLinkByCode(tx, code);
      if (existing) {
        if (requested === null) continue; // generated collision: draw again
        if (existing.orgId !== actor.org.id) throw shortCodeRejected('TAKEN');
        const link = await updateLink(tx, existing.id, { ...mergeLink(existing, req, refs), ...by });
        await enqueueInvalidations(tx, [{ kind: 'link', shortCode: code }]);
        // Kept deep links: their apps, read under the same lock (a request's own were loaded in prepare).
        const apps =
          prepared.apps ??
          (await findApps(
            tx,
            actor.org.id,
            link.deepLinks.map((d) => d.mobileAppId),
          ));
        // Archiving sends link.archived alone; a restore (and any other change) link.updated.
        const event = existing.isActive && !link.isActive ? 'link.archived' : 'link.updated';
        const expiryChanged = existing.expiresAtMs !== link.expiresAtMs || existing.maxClicks !== link.maxClicks;
        return { link, apps, created: false, urlChanged: existing.url !== req.url, event, expiryChanged };
      }
      if (requested !== null && isReservedShortCode(code)) throw shortCodeRejected('RESERVED');
      // A deleted link's code is never given out again, to any organisation.
      if (await isDeletedShortCode(tx, code)) {
        if (requested === null) continue;
        throw shortCodeRejected('TAKEN');
      }
      const edit = mergeLink(newLinkBase(primary?.id ?? null), req, refs);
      const link = await insertLink(tx, { ...edit, ...by, orgId: actor.org.id, shortCode: code, createdBy: actor.attribution, createdVia: actor.via });
      if (link) {
        // After the insert, so a lost race never counts twice; a refused slot rolls the insert back.
        await consumeLinkSlot(tx, actor.org, deps.now());
        // A negative cache entry of this code (an earlier visit) must go too.
        await enqueueInvalidations(tx, [{ kind: 'link', shortCode: code }]);
        return { link, apps: prepared.apps ?? new Map(), created: true, urlChanged: true, event: 'link.created', expiryChanged: false };
      }
      if (requested !== null) {
        // A concurrent create won the code between our SELECT and INSERT: answer as if it had been first.
        const [winner] = await tx<{ org_id: string }[]>`select org_id from links where short_code = ${code}`;
        if (winner && winner.org_id !== actor.org.id) throw shortCodeRejected('TAKEN');
        throw new AppError('SML004', 'DB Write exception', { field: 'shortCode', reason: 'CONCURRENT_WRITE' });
      }
    }
    throw new Error('could not allocate a unique short code');
  }
}
