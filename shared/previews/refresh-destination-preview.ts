// Invariant: refreshing a destination's preview runs in the background and never throws at the
// caller: at most one fetch per URL is in flight in a process, a URL fetched less than maxAgeMs
// ago is not fetched again, and when the visible preview (title, description, image, framing)
// changed, a link invalidation for every short code whose destination is that URL is queued in
// the outbox in the transaction that writes the row, so redirectors reload it.
import { fetchPreview, type PreviewFetchOptions } from './preview-fetcher.ts';
import type { PreviewStore, PreviewValues } from './preview-store.ts';
import type { Telemetry } from '../telemetry/telemetry.ts';

export interface PreviewRefreshDeps {
  previews: PreviewStore;
  /** PREVIEW_ALLOW_PRIVATE (tests only). */
  allowPrivate?: boolean;
  fetchOptions?: Omit<PreviewFetchOptions, 'allowPrivate'>;
  /** Skip URLs fetched more recently than this (ms). Default 1 hour; 0 always fetches. */
  maxAgeMs?: number;
  onError?: (err: unknown, url: string) => void;
  /** Counts each refresh by outcome; default: nowhere. */
  telemetry?: Telemetry;
}

export type PreviewRefreshOutcome = 'changed' | 'unchanged' | 'fresh' | 'failed';

const inFlight = new Map<string, Promise<PreviewRefreshOutcome>>();

function visible(p: PreviewValues | null): string {
  return JSON.stringify(p === null ? [null, null, null, false] : [p.title, p.description, p.imageUrl, p.frameRefused]);
}

async function refresh(deps: PreviewRefreshDeps, url: string): Promise<PreviewRefreshOutcome> {
  const maxAgeMs = deps.maxAgeMs ?? 3_600_000;
  if (maxAgeMs > 0 && (await deps.previews.isFresh(url, maxAgeMs))) return 'fresh';
  const before = await deps.previews.load(url);
  let fetched: Awaited<ReturnType<typeof fetchPreview>>;
  try {
    fetched = await fetchPreview(url, { ...deps.fetchOptions, allowPrivate: deps.allowPrivate ?? false });
  } catch (err) {
    deps.onError?.(err, url);
    await deps.previews.recordFailure(url);
    return 'failed';
  }
  const values = { title: fetched.title, description: fetched.description, imageUrl: fetched.imageUrl, frameRefused: fetched.frameRefused };
  const changed = visible(before) !== visible(values);
  await deps.previews.store(url, values, changed);
  return changed ? 'changed' : 'unchanged';
}

/**
 * Call after a link is saved (created, or its url changed): fetches the destination's preview in
 * the background. The returned promise is for tests and tools; the API need not await it.
 */
export function refreshDestinationPreview(deps: PreviewRefreshDeps, url: string): Promise<PreviewRefreshOutcome> {
  let p = inFlight.get(url);
  if (p === undefined) {
    p = refresh(deps, url)
      .catch((err: unknown) => {
        deps.onError?.(err, url);
        return 'failed' as const;
      })
      .then((outcome) => {
        deps.telemetry?.previewFetched(outcome);
        return outcome;
      })
      .finally(() => inFlight.delete(url));
    inFlight.set(url, p);
  }
  return p;
}
