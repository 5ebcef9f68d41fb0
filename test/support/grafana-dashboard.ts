// Invariant: TEST-ONLY. Reads deploy/grafana/shortlink.json: every panel's PromQL queries, and the
// metric names a query reads (what is left of the expression once strings, label matchers, ranges,
// grouping clauses, functions and operators are taken out). A histogram is queried through its
// series (`_bucket`, `_sum`, `_count`); exportedAs() names the metric that serves each.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');
export const DASHBOARD_PATH = join(ROOT, 'deploy', 'grafana', 'shortlink.json');

export interface Panel {
  id: number;
  type: string;
  title: string;
  description?: string;
  datasource?: { type: string; uid: string };
  gridPos: { h: number; w: number; x: number; y: number };
  targets?: { refId: string; expr: string; legendFormat?: string; datasource?: { type: string; uid: string } }[];
  panels?: Panel[];
}

export interface Dashboard {
  uid: string;
  title: string;
  panels: Panel[];
  templating: { list: { name: string; type: string; query: string }[] };
}

export function readDashboard(): Dashboard {
  return JSON.parse(readFileSync(DASHBOARD_PATH, 'utf8')) as Dashboard;
}

/** Every panel, rows' nested ones included. */
export function allPanels(d: Dashboard): Panel[] {
  return d.panels.flatMap((p) => [p, ...(p.panels ?? [])]);
}

export interface PanelQuery {
  panel: string;
  expr: string;
}

export function dashboardQueries(d: Dashboard): PanelQuery[] {
  return allPanels(d).flatMap((p) => (p.targets ?? []).map((t) => ({ panel: p.title, expr: t.expr })));
}

const KEYWORDS = new Set(['and', 'or', 'unless', 'bool', 'offset', 'by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'inf', 'nan']);

/** The metric names `expr` reads. */
export function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, ' ')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names = new Set<string>();
  for (const m of bare.matchAll(/(?<![\w.])[a-zA-Z_:][a-zA-Z0-9_:]*/g)) {
    const rest = bare.slice((m.index ?? 0) + m[0].length);
    if (/^\s*\(/.test(rest) || KEYWORDS.has(m[0].toLowerCase())) continue;
    names.add(m[0]);
  }
  return [...names];
}

/** The metric whose exposition holds `name`: itself, or the histogram behind a `_bucket`/`_sum`/`_count` series. */
export function exportedAs(name: string, types: ReadonlyMap<string, string>): string | null {
  if (types.has(name)) return name;
  const base = /^(.*)_(bucket|sum|count)$/.exec(name)?.[1];
  return base !== undefined && (types.get(base) === 'histogram' || types.get(base) === 'summary') ? base : null;
}

/** `# TYPE name type` lines of a Prometheus text exposition: every metric a process registers, samples or not. */
export function exposedTypes(text: string): Map<string, string> {
  return new Map([...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => [m[1]!, m[2]!]));
}

/** Grafana's interval variables, as a plain Prometheus query needs them. */
export function withIntervals(expr: string, interval: string): string {
  return expr.replaceAll('$__rate_interval', interval).replaceAll('$__interval', interval).replaceAll('$__range', interval);
}
