import { describe, expect, it } from 'vitest';
import type { AnalyticsOutcome } from './analytics-check.ts';
import type { RunResult } from './generator.ts';
import { LatencyRecorder } from './latency.ts';
import { parseLoadArgs } from './options.ts';
import { buildReport, renderTable, type ReportInput } from './report.ts';
import { renderHtml } from './report-html.ts';

const options = (...extra: string[]) => {
  const p = parseLoadArgs(['--target', 'http://sho.rt', '--codes', 'f', '--rate', '1000', '--duration', '10s', ...extra]);
  if (p.kind !== 'run') throw new Error(JSON.stringify(p));
  return p.options;
};

/** A run of `answered` 302s over `elapsedMs`, plus the given failures. */
function runOf(answered: number, elapsedMs: number, errors: [string, number][] = [], statuses: [number, number][] = [[302, answered]]): RunResult {
  const recorder = new LatencyRecorder(1000);
  for (let i = 0; i < answered; i++) recorder.answer(1000 + (i % 100) * 10, 900, i % 2 ? 300 : 0);
  recorder.closeInterval(elapsedMs);
  const failed = errors.reduce((n, [, c]) => n + c, 0);
  return {
    recorder,
    scheduled: answered + failed,
    sent: answered + failed,
    answered,
    statuses: new Map(statuses),
    errors: new Map(errors),
    elapsedMs,
    cpuMs: elapsedMs / 4,
    interrupted: false,
  };
}

const input = (run: RunResult, analytics: AnalyticsOutcome | null = null, o = options()): ReportInput => ({
  runId: 'r1',
  startedAtMs: Date.UTC(2026, 10, 27, 10),
  finishedAtMs: Date.UTC(2026, 10, 27, 10, 0, 12),
  options: o,
  linkCount: 3,
  run,
  analytics,
  analyticsError: null,
});
const settled = (served: number, stored: number, ok = true): AnalyticsOutcome => ({
  served,
  stored,
  settled: ok,
  waitedMs: 2100,
  referrerDomain: 'r1.load-kit.invalid',
});

describe('report', () => {
  it('passes a run at the rate without errors whose clicks were all stored, and names its unit', () => {
    const r = buildReport(input(runOf(10_000, 10_010), settled(10_000, 10_000)));
    expect(r.verdict).toEqual({ pass: true, failures: [] });
    expect(r.unit).toBe('ms');
    expect(r.rate.achievedPerS).toBeCloseTo(999, 0);
    expect(r.requests).toMatchObject({ scheduled: 10_000, answered: 10_000, failed: 0, served: 10_000 });
    expect(r.latency.p50Ms).toBeCloseTo(1.5, 1);
    expect(r.latency.maxMs).toBeCloseTo(1.99, 1);
    expect(r.serviceTime.p99Ms).toBeCloseTo(0.9, 2);
    expect(r.generator).toMatchObject({ cpuPercentOfCore: 25, lateSends: 5000, lateP99Ms: 0.3 });
    expect(r.statuses).toEqual({ '302': 10_000 });
    expect(r.histogram.count.reduce((a, b) => a + b, 0)).toBe(10_000);
    expect(Object.keys(r.latency)).toEqual(['count', 'p50Ms', 'p90Ms', 'p99Ms', 'p999Ms', 'maxMs', 'meanMs']);
  });

  it('fails below 95% of the rate, above --max-errors, and when stored ≠ served or still moving', () => {
    expect(buildReport(input(runOf(9_400, 10_000))).verdict.failures).toEqual(['achieved rate 940/s is below 95% of the offered 1,000/s']);
    expect(buildReport(input(runOf(9_600, 10_000))).verdict.pass).toBe(true);
    const errors = runOf(
      9_990,
      10_000,
      [
        ['timeout', 6],
        ['HTTP 503', 5],
      ],
      [
        [302, 9_985],
        [503, 5],
      ],
    );
    expect(buildReport(input(errors)).verdict.failures).toEqual(['failed requests 0.110% exceed --max-errors 0.100%']);
    expect(buildReport(input(errors, null, options('--max-errors', '0.2%'))).verdict.pass).toBe(true);
    expect(buildReport(input(errors)).requests.served).toBe(9_985);
    expect(buildReport(input(runOf(10_000, 10_000), settled(10_000, 9_999))).verdict.failures).toEqual(['stored 9,999 ≠ served 10,000']);
    expect(buildReport(input(runOf(10_000, 10_000), settled(10_000, 5_000, false))).verdict.failures[0]).toMatch(/^stored clicks still changing/);
    expect(buildReport({ ...input(runOf(10_000, 10_000)), analyticsError: 'HTTP 401' }).verdict.failures).toEqual([
      "the run's clicks could not be counted: HTTP 401",
    ]);
  });

  it('prints a table with the rate, percentiles, statuses, errors and the analytics check', () => {
    const r = buildReport(
      input(
        runOf(
          9_990,
          10_000,
          [['timeout', 6]],
          [
            [302, 9_985],
            [404, 5],
          ],
        ),
        settled(9_990, 9_990),
      ),
    );
    const t = renderTable(r, 'bench/results/load-x');
    expect(t).toContain('offered 1,000/s · achieved 999/s');
    expect(t).toMatch(/latency +p50 1\.\d+ · p90 1\.\d+ · p99 1\.\d+ · p99\.9 1\.\d+ · max 1\.\d+ ms/);
    expect(t).toContain('302 × 9,985 · 404 × 5');
    expect(t).toContain('timeout × 6');
    expect(t).toContain('served 9,990 · stored 9,990');
    expect(t).toContain('bench/results/load-x/report.html');
    expect(t.split('\n').at(-1)).toBe('PASS');
  });

  it('renders a page that escapes the report text and cannot be broken out of by the data', () => {
    const o = options();
    o.target = new URL('http://sho.rt/<script>alert(1)</script>');
    const r = buildReport({ ...input(runOf(100, 1000), null, o), runId: '</script><b>' });
    const html = renderHtml(r, { js: '/* uPlot */', css: '/* css */' });
    expect(html).not.toContain('<script>alert(1)');
    expect(html).not.toContain('</script><b>');
    expect(html).toContain('&#60;/script&#62;&#60;b&#62;');
    const data = /<script id="report-data" type="application\/json">(.*?)<\/script>/s.exec(html)?.[1];
    expect(JSON.parse(data!).runId).toBe('</script><b>');
    expect(html).toContain('/* uPlot */');
    expect(html).not.toMatch(/<(script|link|img)[^>]+(src|href)=/);
  });
});
