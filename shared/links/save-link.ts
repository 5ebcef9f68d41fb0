// Invariant: every create or update of a link, from the API or the admin CLI, goes through
// saveLink: validate → check references (domain, apps) → check plan features → one transaction
// (TAKEN/RESERVED, quota, write, and the link's invalidation queued in the outbox). Updates merge:
// only the members the request carries change; `url` is always required. Only a create or a
// changed url asks for the destination's preview.
import { findAppsForOrg } from '../apps/find-apps-for-org.ts';
import { findApps, type MobileApp } from '../apps/mobile-app-repository.ts';
import { enqueueInvalidations } from '../bus/invalidation-outbox.ts';
import type { Sql, Tx } from '../db/database.ts';
import { AppError, AppErrorList } from '../errors/app-error.ts';
import { customDomainInactive, deepLinkRejected, featureNotAvailable, shortCodeRejected } from '../errors/domain-errors.ts';
import { findActiveDomain, findPrimaryDomain } from '../domains/domain-repository.ts';
import type { Organization } from '../orgs/organization.ts';
import { planHasFeature, suggestFeatureUpgrade } from '../orgs/plans.ts';
import { consumeLinkSlot } from '../quotas/link-quota.ts';
import type { ChangeSource, DeepLink, Link } from './link.ts';
import { findLinkByCode, lockLinkByCode } from './link-repository.ts';
import { parseSaveLinkRequest, type DeepLinkRequest, type SaveLinkRequest } from './link-request.ts';
import { toLinkResponse, type LinkResponse } from './link-response.ts';
import { linkWriteColumns, type LinkWrite } from './link-table.ts';
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

/** Value for a nullable text column on update: absent keeps, null clears. */
const keepOr = <T>(incoming: T | null | undefined, current: T | null): T | null => (incoming === undefined ? current : incoming);
/** Booleans: absent or null keeps the stored value. */
const keepBool = (incoming: boolean | null | undefined, current: boolean): boolean => incoming ?? current;

interface Prepared {
  req: SaveLinkRequest;
  domainId: number | null | undefined;
  deepLinks: DeepLink[] | undefined;
}

async function prepare(deps: LinkServiceDeps, actor: Actor, body: unknown): Promise<Prepared> {
  const parsed = parseSaveLinkRequest(body);
  if (!parsed.ok) throw new AppErrorList(parsed.errors);
  const req = parsed.value;
  if (req.shortCode !== undefined && req.shortCode !== null && !isValidShortCode(req.shortCode)) throw shortCodeRejected('FORMAT');

  let domainId: number | null | undefined;
  if (req.customDomain !== undefined && req.customDomain !== null) {
    const domain = await findActiveDomain(deps.sql, actor.org.id, req.customDomain);
    if (!domain) throw customDomainInactive(req.customDomain);
    domainId = domain.id;
  }
  // Absent or null keeps the stored entries; [] clears them.
  const deepLinks = req.deepLinks ? (await resolveDeepLinks(deps.sql, actor.org, req.deepLinks)).stored : undefined;
  if (req.enableCustomMetadata === true && !planHasFeature(actor.org.plan, 'METADATA_PREVIEW')) {
    throw featureNotAvailable('METADATA_PREVIEW', actor.org.plan, suggestFeatureUpgrade(actor.org.plan, 'METADATA_PREVIEW'));
  }
  return { req, domainId, deepLinks };
}

async function insertLink(tx: Tx, actor: Actor, p: Prepared, code: string, defaultDomainId: number | null): Promise<boolean> {
  const r = p.req;
  const write: LinkWrite = {
    orgId: actor.org.id,
    shortCode: code,
    url: r.url,
    shortLinkName: r.shortLinkName ?? null,
    domainId: p.domainId ?? defaultDomainId,
    isActive: r.isActive ?? true,
    cloakEnabled: r.cloakEnabled ?? false,
    utmSource: r.utmSource ?? null,
    utmMedium: r.utmMedium ?? null,
    utmCampaign: r.utmCampaign ?? null,
    enableCustomMetadata: r.enableCustomMetadata ?? false,
    customMetadataTitle: r.customMetadataTitle ?? null,
    customMetadataDescription: r.customMetadataDescription ?? null,
    customMetadataImageUrl: r.customMetadataImageUrl ?? null,
    deepLinks: p.deepLinks ?? [],
    createdBy: actor.attribution,
    updatedBy: actor.attribution,
    createdVia: actor.via,
    lastModifiedVia: actor.via,
  };
  const [row] = await tx`insert into links ${tx(linkWriteColumns(tx, write))} on conflict (short_code) do nothing returning id`;
  return row !== undefined;
}

async function updateLink(tx: Tx, actor: Actor, p: Prepared, cur: Link): Promise<void> {
  const r = p.req;
  const write: LinkWrite = {
    url: r.url,
    shortLinkName: keepOr(r.shortLinkName, cur.shortLinkName),
    domainId: p.domainId === undefined ? cur.domainId : p.domainId,
    isActive: keepBool(r.isActive, cur.isActive),
    cloakEnabled: keepBool(r.cloakEnabled, cur.cloakEnabled),
    utmSource: keepOr(r.utmSource, cur.utmSource),
    utmMedium: keepOr(r.utmMedium, cur.utmMedium),
    utmCampaign: keepOr(r.utmCampaign, cur.utmCampaign),
    enableCustomMetadata: keepBool(r.enableCustomMetadata, cur.enableCustomMetadata),
    customMetadataTitle: keepOr(r.customMetadataTitle, cur.customMetadataTitle),
    customMetadataDescription: keepOr(r.customMetadataDescription, cur.customMetadataDescription),
    customMetadataImageUrl: keepOr(r.customMetadataImageUrl, cur.customMetadataImageUrl),
    deepLinks: p.deepLinks ?? cur.deepLinks,
    updatedBy: actor.attribution,
    lastModifiedVia: actor.via,
  };
  await tx`update links set ${tx(linkWriteColumns(tx, write))}, updated_at = clock_timestamp() where id = ${cur.id}`;
}

export async function saveLink(deps: LinkServiceDeps, actor: Actor, body: unknown): Promise<SaveOutcome> {
  const prepared = await prepare(deps, actor, body);
  const requested = prepared.req.shortCode ?? null;
  const primary = prepared.domainId === undefined ? await findPrimaryDomain(deps.sql, actor.org.id) : null;

  const { code, created, urlChanged } = await deps.sql.begin(async (tx) => {
    for (let attempt = 0; attempt < 8; attempt++) {
      const code = requested ?? generateShortCode();
      const existing = await lockLinkByCode(tx, code);
      if (existing) {
        if (requested === null) continue; // generated collision: draw again
        if (existing.orgId !== actor.org.id) throw shortCodeRejected('TAKEN');
        await updateLink(tx, actor, prepared, existing);
        await enqueueInvalidations(tx, [{ kind: 'link', shortCode: code }]);
        return { code, created: false, urlChanged: existing.url !== prepared.req.url };
      }
      if (requested !== null && isReservedShortCode(code)) throw shortCodeRejected('RESERVED');
      if (await insertLink(tx, actor, prepared, code, primary?.id ?? null)) {
        // After the insert, so a lost race never counts twice; a refused slot rolls the insert back.
        await consumeLinkSlot(tx, actor.org, deps.now());
        // A negative cache entry of this code (an earlier visit) must go too.
        await enqueueInvalidations(tx, [{ kind: 'link', shortCode: code }]);
        return { code, created: true, urlChanged: true };
      }
      if (requested !== null) {
        // A concurrent create won the code between our SELECT and INSERT: answer as if it had been first.
        const [winner] = await tx<{ org_id: string }[]>`select org_id from links where short_code = ${code}`;
        if (winner && winner.org_id !== actor.org.id) throw shortCodeRejected('TAKEN');
        throw new AppError('SML004', 'DB Write exception', { field: 'shortCode', reason: 'CONCURRENT_WRITE' });
      }
    }
    throw new Error('could not allocate a unique short code');
  });

  // An update that keeps the url fetches nothing: the destination's preview is already known.
  if (urlChanged) deps.onDestinationSaved?.(prepared.req.url, actor.org.id);
  const link = await findLinkByCode(deps.sql, code);
  if (!link) throw new AppError('SML001');
  const apps = await findAppsForOrg(deps.sql, actor.org.id, [link]);
  return { view: toLinkResponse(link, apps, { shortLinkBase: deps.shortLinkBase, includeAppId: true }), created };
}
