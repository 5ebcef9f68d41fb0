// Invariant: a run's report is one plain object (report.json as written), built by a pure function
// from the run's counts, histograms and analytics check; latencies are in milliseconds, named in
// every key (p99Ms) and in `unit`. The verdict fails exactly when the achieved rate is below 95% of
// the offered one, failed requests exceed --max-errors, or the analytics check did not find every
// click served (stored ≠ served, or still moving). The text table is rendered from the report alone.
import type { AnalyticsOutcome } from './analytics-check.ts';
import type { RunResult } from './generator.ts';
import { type Buckets, type LatencySummary, logBuckets, recordedValues, type Series, summarize } from './latency.ts';
import type { LoadOptions } from './options.ts';

export const RATE_SHARE_REQUIRED = 0.95;

export interface Report {
  kind: 'shortlink-load-report';
  version: 1;
  /** The unit of every latency in this report (also in each key: p99Ms). */
  unit: 'ms';
  runId: string;
  startedAt: string;
  finishedAt: string;
  target: string;
  links: { from: 'codes file' | 'created through the API'; count: number };
  options: { rate: number; durationMs: number; connections: number; maxErrorsPercent: number; timeoutMs: number; forwardedFor: boolean };
  rate: { offeredPerS: number; achievedPerS: number; achievedShare: number };
  requests: { scheduled: number; sent: number; answered: number; failed: number; failedShare: number; served: number };
  /** From each request's slot in the schedule: what a visitor arriving on schedule waited. */
  latency: LatencySummary;
  /** From when each request was written: what a closed-loop tool would have reported. */
  serviceTime: LatencySummary;
  generator: { cpuPercentOfCore: number; lateSends: number; lateP99Ms: number; lateMaxMs: number; interrupted: boolean };
  statuses: Record<string, number>;
  errors: Record<string, number>;
  analytics: AnalyticsOutcome | null;
  /** Per interval of the run (by when the answers came). */
  series: Series;
  /** The latency (from the schedule) histogram in logarithmic buckets. */
  histogram: Buckets;
  verdict: { pass: boolean; failures: string[] };
}

export interface ReportInput {
  runId: string;
  startedAtMs: number;
  finishedAtMs: number;
  options: LoadOptions;
  linkCount: number;
  run: RunResult;
  analytics: AnalyticsOutcome | null;
  /** Why the analytics could not be counted (the API failed), if so. */
  analyticsError: string | null;
}

const sortedRecord = <K extends string | number>(m: Map<K, number>, byCount: boolean): Record<string, number> =>
  Object.fromEntries([...m].sort((a, b) => (byCount ? b[1] - a[1] : Number(a[0]) - Number(b[0]))).map(([k, v]) => [String(k), v]));

const int = (n: number): string => Math.round(n).toLocaleString('en-US');
const pct = (share: number): string => `${(share * 100).toFixed(share < 0.01 ? 3 : 1)}%`;

/** Answers that record a click: every 2xx and 3xx (a redirect, a cloaked or app page). */
export function servedOf(statuses: ReadonlyMap<number, number>): number {
  let n = 0;
  for (const [status, count] of statuses) if (status >= 200 && status < 400) n += count;
  return n;
}

export function buildReport(i: ReportInput): Report {
  const { run, options: o } = i;
  const served = servedOf(run.statuses);
  const failed = [...run.errors.values()].reduce((n, c) => n + c, 0);
  const achievedPerS = run.elapsedMs > 0 ? (run.answered * 1000) / run.elapsedMs : 0;
  const failedShare = run.scheduled > 0 ? failed / run.scheduled : 0;
  const late = summarize(run.recorder.lateness);
  const failures: string[] = [];
  if (achievedPerS < RATE_SHARE_REQUIRED * o.rate) failures.push(`achieved rate ${int(achievedPerS)}/s is below 95% of the offered ${int(o.rate)}/s`);
  if (failedShare > o.maxErrors) failures.push(`failed requests ${pct(failedShare)} exceed --max-errors ${pct(o.maxErrors)}`);
  if (i.analyticsError !== null) failures.push(`the run's clicks could not be counted: ${i.analyticsError}`);
  else if (i.analytics !== null) {
    const a = i.analytics;
    if (!a.settled)
      failures.push(`stored clicks still changing ${Math.round(a.waitedMs / 1000)} s after the run (${int(a.stored)} of ${int(a.served)} served)`);
    else if (a.stored !== a.served) failures.push(`stored ${int(a.stored)} ≠ served ${int(a.served)}`);
  }
  return {
    kind: 'shortlink-load-report',
    version: 1,
    unit: 'ms',
    runId: i.runId,
    startedAt: new Date(i.startedAtMs).toISOString(),
    finishedAt: new Date(i.finishedAtMs).toISOString(),
    target: o.target.href,
    links: { from: o.source.kind === 'codes' ? 'codes file' : 'created through the API', count: i.linkCount },
    options: {
      rate: o.rate,
      durationMs: o.durationMs,
      connections: o.connections,
      maxErrorsPercent: o.maxErrors * 100,
      timeoutMs: o.timeoutMs,
      forwardedFor: o.forwardedFor,
    },
    rate: { offeredPerS: o.rate, achievedPerS: Math.round(achievedPerS * 10) / 10, achievedShare: o.rate > 0 ? achievedPerS / o.rate : 0 },
    requests: { scheduled: run.scheduled, sent: run.sent, answered: run.answered, failed, failedShare, served },
    latency: summarize(run.recorder.latency),
    serviceTime: summarize(run.recorder.service),
    generator: {
      cpuPercentOfCore: run.elapsedMs > 0 ? Math.round((run.cpuMs / run.elapsedMs) * 1000) / 10 : 0,
      lateSends: late.count,
      lateP99Ms: late.p99Ms,
      lateMaxMs: late.maxMs,
      interrupted: run.interrupted,
    },
    statuses: sortedRecord(run.statuses, false),
    errors: sortedRecord(run.errors, true),
    analytics: i.analytics,
    series: run.recorder.series,
    histogram: logBuckets(recordedValues(run.recorder.latency)),
    verdict: { pass: failures.length === 0, failures },
  };
}

/** A latency in ms with about three significant figures. */
export function ms(x: number): string {
  if (x >= 100) return x.toFixed(0);
  if (x >= 10) return x.toFixed(1);
  return x.toFixed(2);
}

const percentiles = (l: LatencySummary): string =>
  `p50 ${ms(l.p50Ms)} · p90 ${ms(l.p90Ms)} · p99 ${ms(l.p99Ms)} · p99.9 ${ms(l.p999Ms)} · max ${ms(l.maxMs)} ms`;

const counts = (r: Record<string, number>, prefix = ''): string =>
  Object.entries(r)
    .map(([k, v]) => `${prefix}${k} × ${int(v)}`)
    .join(' · ');

/** The report as rows of (label, text), as the table and the HTML page show them. */
export function reportRows(r: Report): [string, string][] {
  const rows: [string, string][] = [
    ['rate', `offered ${int(r.rate.offeredPerS)}/s · achieved ${int(r.rate.achievedPerS)}/s (${(r.rate.achievedShare * 100).toFixed(1)}%)`],
    ['latency', `${percentiles(r.latency)}  (from each request's scheduled time)`],
    ['service time', `${percentiles(r.serviceTime)}  (from when it was sent: what a closed-loop tool reports)`],
    ['requests', `scheduled ${int(r.requests.scheduled)} · sent ${int(r.requests.sent)} · answered ${int(r.requests.answered)}`],
    ['statuses', Object.keys(r.statuses).length === 0 ? 'none' : counts(r.statuses)],
    [
      'errors',
      r.requests.failed === 0
        ? `0 (max ${r.options.maxErrorsPercent}%)`
        : `${int(r.requests.failed)} (${pct(r.requests.failedShare)}, max ${r.options.maxErrorsPercent}%): ${counts(r.errors)}`,
    ],
  ];
  if (r.analytics !== null) {
    const a = r.analytics;
    const state = a.settled ? `settled ${(a.waitedMs / 1000).toFixed(1)} s after the run` : `still changing ${(a.waitedMs / 1000).toFixed(0)} s after the run`;
    rows.push(['analytics', `served ${int(a.served)} · stored ${int(a.stored)} (${state}; referrerDomain ${a.referrerDomain})`]);
  }
  rows.push([
    'generator',
    `${r.generator.cpuPercentOfCore}% of a core · ${int(r.generator.lateSends)} sends late by its own timer (p99 ${ms(r.generator.lateP99Ms)} ms, max ${ms(r.generator.lateMaxMs)} ms)${r.generator.interrupted ? ' · interrupted' : ''}`,
  ]);
  return rows;
}

/** One line naming what was run: target, links, duration, rate and connections. */
export function reportHeading(r: Report): string {
  const links = `${r.links.count.toLocaleString('en-US')} link${r.links.count === 1 ? '' : 's'} (${r.links.from})`;
  return `${r.target} · ${links} · ${r.options.durationMs / 1000} s at ${r.options.rate.toLocaleString('en-US')}/s · ${r.options.connections} connections`;
}

/** The table printed at the end of a run. */
export function renderTable(r: Report, reportDir: string): string {
  const rows = reportRows(r);
  rows.push(['report', `${reportDir}/report.html (and report.json)`]);
  const width = Math.max(...rows.map(([k]) => k.length));
  const head = reportHeading(r);
  const verdict = r.verdict.pass ? 'PASS' : `FAIL: ${r.verdict.failures.join('; ')}`;
  return [head, ...rows.map(([k, v]) => `  ${k.padEnd(width)}  ${v}`), verdict].join('\n');
}
