// Invariant: deleting a link is one transaction: the organisation's link row is locked, its code
// is written to deleted_short_codes (kept for good, so the code is never given out again, to any
// organisation), the row is removed, its invalidation is queued in the outbox (every cache tier
// drops it, and the code answers 404 EN001 everywhere) and link.deleted is queued for webhooks
// with the Short URL object as it was. A code of another organisation, unknown or already deleted
// answers 404 EN001 alike. With purgeAnalytics the purge must be able to run (checked first), and
// the link's events, all time, are purged once the delete has committed: every event stored
// before the delete (event-purge.ts). Should that purge fail, the link stays deleted and the
// error is answered; the purge endpoint with shortCode finishes it.
import { z } from 'zod';
import { findApps } from '../apps/mobile-app-repository.ts';
import { enqueueInvalidations } from '../bus/invalidation-outbox.ts';
import { AppErrorList } from '../errors/app-error.ts';
import { linkNotFound, malformedBody } from '../errors/domain-errors.ts';
import { enqueueWebhookEvent } from '../webhooks/webhook-events.ts';
import { issuesToErrors } from './link-request.ts';
import { lockLinkByCode } from './link-repository.ts';
import { toLinkResponse, type LinkResponse } from './link-response.ts';
import type { Actor, LinkServiceDeps } from './save-link.ts';

export const deleteLinkRequestSchema = z.object({
  shortCode: z.string({ error: 'must not be empty' }).min(1, 'must not be empty').max(64, 'size must be between 1 and 64'),
  purgeAnalytics: z
    .boolean()
    .nullish()
    .meta({ description: "Also purge the link's analytics events (every type, all time), as the purge endpoint does. Default false." }),
});
export type DeleteLinkRequest = z.infer<typeof deleteLinkRequestSchema>;

/** The analytics purge as a delete needs it. */
export interface LinkEventsPurge {
  /** Throws (503 SML006) when a purge cannot run now: checked before anything is deleted. */
  assertReady(): void;
  /** Removes every stored analytics event of the organisation's link `shortCode`; returns how many. */
  purgeLink(orgId: string, shortCode: string): Promise<number>;
}

export interface DeleteOutcome {
  /** The Short URL object as it was before the delete (the link.deleted webhook's data too). */
  view: LinkResponse;
  /** Events purged; null when purgeAnalytics was not asked for. */
  purgedEvents: number | null;
}

export function parseDeleteLinkRequest(body: unknown): DeleteLinkRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw malformedBody();
  const result = deleteLinkRequestSchema.safeParse(body, { reportInput: true });
  if (!result.success) throw new AppErrorList(issuesToErrors(result.error.issues, ['shortCode']));
  return result.data;
}

export async function deleteLink(deps: LinkServiceDeps, actor: Actor, body: unknown, purge?: LinkEventsPurge): Promise<DeleteOutcome> {
  const req = parseDeleteLinkRequest(body);
  const code = req.shortCode;
  if (req.purgeAnalytics === true) {
    if (!purge) throw new Error('purgeAnalytics needs the analytics store');
    purge.assertReady();
  }
  const view = await deps.sql.begin(async (tx) => {
    const link = await lockLinkByCode(tx, code);
    if (!link || link.orgId !== actor.org.id) throw linkNotFound(code);
    const apps = await findApps(
      tx,
      actor.org.id,
      link.deepLinks.map((d) => d.mobileAppId),
    );
    const view = toLinkResponse(link, apps, { shortLinkBase: deps.shortLinkBase, includeAppId: true });
    await tx`insert into deleted_short_codes (short_code, org_id, link_id, deleted_by) values (${code}, ${actor.org.id}, ${link.id}, ${actor.attribution})`;
    await tx`delete from links where id = ${link.id}`;
    await enqueueInvalidations(tx, [{ kind: 'link', shortCode: code }]);
    await enqueueWebhookEvent(tx, actor.org.id, 'link.deleted', view);
    return view;
  });
  const purgedEvents = req.purgeAnalytics === true && purge ? await purge.purgeLink(actor.org.id, code) : null;
  return { view, purgedEvents };
}
