// Invariant: after a run, its clicks are counted through the analytics API alone: every visit of
// the run carried the run's own Referer host, so the aggregates' `total` filtered by that
// referrerDomain (over the UTC days around the run, which cover the run in any organisation's
// time zone) is what the deployment stored of this run and nothing else. The count is read
// every POLL_MS until it settles (settle(), pure): equal to the answers served, or unchanged for
// QUIET_MS; after MAX_WAIT_MS of change it has not settled.
import { type Api, callApi } from './api.ts';

export const POLL_MS = 2_000;
export const QUIET_MS = 15_000;
export const MAX_WAIT_MS = 180_000;

export interface Sample {
  /** ms since the run ended. */
  atMs: number;
  stored: number;
}

export type Verdict = 'wait' | 'settled' | 'moving';

/** Whether the counts read so far (oldest first) have settled against `served`. */
export function settle(samples: readonly Sample[], served: number, o = { quietMs: QUIET_MS, maxWaitMs: MAX_WAIT_MS }): Verdict {
  const last = samples.at(-1);
  if (last === undefined) return 'wait';
  if (last.stored === served) return 'settled';
  let since = last.atMs;
  for (let i = samples.length - 2; i >= 0 && samples[i]!.stored === last.stored; i--) since = samples[i]!.atMs;
  if (last.atMs - since >= o.quietMs) return 'settled';
  return last.atMs >= o.maxWaitMs ? 'moving' : 'wait';
}

export interface AnalyticsOutcome {
  served: number;
  stored: number;
  /** False when the count still moved after MAX_WAIT_MS. */
  settled: boolean;
  waitedMs: number;
  referrerDomain: string;
}

const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** The run's clicks the deployment stored now. */
export async function storedClicks(api: Api, referrerDomain: string, startedAtMs: number, onWait?: (s: number) => void): Promise<number> {
  const q = new URLSearchParams({
    groupBy: 'clickSource',
    from: utcDay(startedAtMs - 86_400_000),
    to: utcDay(Date.now() + 86_400_000),
    referrerDomain,
  });
  const r = await callApi<{ total: number }>(api, 'GET', `/analytics/aggregates?${q}`, undefined, onWait);
  return r.total;
}

export async function waitForStored(
  api: Api,
  referrerDomain: string,
  served: number,
  startedAtMs: number,
  onSample: (s: Sample) => void,
): Promise<AnalyticsOutcome> {
  const endedAt = Date.now();
  const samples: Sample[] = [];
  for (;;) {
    const stored = await storedClicks(api, referrerDomain, startedAtMs);
    const sample = { atMs: Date.now() - endedAt, stored };
    samples.push(sample);
    if (samples.length > 2 * (MAX_WAIT_MS / POLL_MS)) samples.shift();
    onSample(sample);
    const v = settle(samples, served);
    if (v !== 'wait') return { served, stored, settled: v === 'settled', waitedMs: sample.atMs, referrerDomain };
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}
