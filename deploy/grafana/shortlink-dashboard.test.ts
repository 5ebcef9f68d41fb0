// Invariant: deploy/grafana/shortlink.json is a Grafana dashboard whose every panel queries
// Prometheus through the dashboard's datasource variable, whose every query is valid PromQL
// (`promtool check rules` on it; required in CI) and reads only metrics the code registers (its
// own, or prom-client's default process metrics), and which covers what an operator watches:
// redirect rate, outcomes, latency, cache tiers, the events' path, backfill, webhooks, refusals and
// the processes. That the running processes export each of them is test/ops-kit.test.ts.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { allPanels, dashboardQueries, exportedAs, metricNames, readDashboard, withIntervals } from '../../test/support/grafana-dashboard.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const dashboard = readDashboard();
const queries = dashboardQueries(dashboard);
const queried = new Set(queries.flatMap((q) => metricNames(q.expr)));
const havePromtool = spawnSync('which', ['promtool']).status === 0;

/** What the code registers: the names in the metrics modules, typed by how they are made, and prom-client's defaults. */
async function registered(): Promise<Map<string, string>> {
  const types = new Map<string, string>();
  for (const file of ['shared/runtime/prometheus-metrics.ts', 'redirector/metrics.ts']) {
    const source = readFileSync(join(ROOT, file), 'utf8');
    for (const m of source.matchAll(/'(?:counter|gauge)',\s*'((?:shortlink|redirector)_[a-z0-9_]+)'/g)) types.set(m[1]!, 'metric');
    for (const m of source.matchAll(/new (Counter|Gauge|Histogram)\(\{\s*name: '([a-z0-9_]+)'/g)) types.set(m[2]!, m[1]!.toLowerCase());
  }
  const defaults = new Registry();
  collectDefaultMetrics({ register: defaults });
  for (const m of await defaults.getMetricsAsJSON()) types.set(m.name, String(m.type));
  return types;
}

describe('deploy/grafana/shortlink.json', () => {
  it('is a dashboard whose panels all query Prometheus through its datasource variable', () => {
    expect(dashboard.uid).toBe('shortlink');
    expect(dashboard.templating.list).toContainEqual(expect.objectContaining({ name: 'datasource', type: 'datasource', query: 'prometheus' }));
    const panels = allPanels(dashboard);
    expect(new Set(panels.map((p) => p.id)).size).toBe(panels.length);
    for (const p of panels.filter((p) => p.type !== 'row')) {
      // biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's variable syntax, not a template
      expect(p.datasource, p.title).toEqual({ type: 'prometheus', uid: '${datasource}' });
      expect(p.description, p.title).toBeTruthy();
      expect(p.targets?.length, p.title).toBeGreaterThan(0);
      for (const t of p.targets ?? []) expect(t.expr.trim(), p.title).not.toBe('');
      expect(p.gridPos.x + p.gridPos.w, p.title).toBeLessThanOrEqual(24);
    }
  });

  it('reads only metrics the code registers, and none of the replaced analytics.events feed’s', async () => {
    const types = await registered();
    expect(types.size).toBeGreaterThan(40);
    expect([...queried].filter((name) => exportedAs(name, types) === null)).toEqual([]);
    // The analytics.events feed's old metrics (replaced by the store-composed feed's) stay off it.
    for (const old of [
      'shortlink_webhook_analytics_messages_written_total',
      'shortlink_webhook_analytics_queued_events',
      'shortlink_webhook_analytics_dropped_events_total',
    ])
      expect(queried).not.toContain(old);
    // The parser finds what a query reads, and nothing else.
    expect(metricNames('sum by (le) (rate(a_bucket{x="y"}[$__rate_interval])) / on (instance) b and c offset 5m')).toEqual(['a_bucket', 'b', 'c']);
  });

  it('covers redirect rate, outcomes, latency, cache tiers, events, backfill, webhooks, refusals and the processes', () => {
    for (const name of [
      'redirector_requests_total',
      'redirector_cache_hits_total',
      'redirector_cache_misses_total',
      'redirector_events_handed_off_total',
      'shortlink_analytics_events_inserted_total',
      'shortlink_analytics_spooled_events_total',
      'shortlink_analytics_events_dropped_total',
      'shortlink_backfill_lag_seconds',
      'shortlink_backfill_inserted_events_total',
      'shortlink_webhook_delivery_lag_seconds_bucket',
      'shortlink_webhook_failed_total',
      'shortlink_rate_limit_rejections_total',
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_eventloop_lag_p99_seconds',
    ])
      expect(queried, name).toContain(name);
    const exprs = queries.map((q) => q.expr).join('\n');
    expect(exprs).toContain('outcome="quota_exhausted"');
    expect(exprs).toMatch(/histogram_quantile\(0\.99, sum by \(le\) \(rate\(shortlink_webhook_delivery_lag_seconds_bucket/);
    // There is no redirect latency histogram: the latency panel says so instead of inventing one.
    const latency = allPanels(dashboard).find((p) => p.title.startsWith('Latency'));
    expect(latency?.description).toMatch(/No redirect latency histogram is exported/);
  });

  it('promtool is installed in CI', () => {
    if (process.env.CI) expect(havePromtool).toBe(true);
  });

  it.skipIf(!havePromtool)('every query is valid PromQL (promtool check rules)', () => {
    const dir = mkdtempSync(join(ROOT, '.tmp', 'grafana-promql-'));
    try {
      const rules = queries.map((q, i) => ({ record: `shortlink:dashboard_query_${i}`, expr: withIntervals(q.expr, '5m') }));
      writeFileSync(join(dir, 'queries.yml'), stringify({ groups: [{ name: 'dashboard', rules }] }));
      const check = spawnSync('promtool', ['check', 'rules', 'queries.yml'], { cwd: dir, encoding: 'utf8' });
      expect({ status: check.status, out: check.stdout + check.stderr }).toMatchObject({ status: 0 });
      expect(check.stdout).toContain(`SUCCESS: ${rules.length} rules found`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
