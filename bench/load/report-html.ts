// Invariant: report.html is one self-contained page: uPlot's script and stylesheet and the report's
// data are inlined, nothing is fetched, so it opens from disk with no network. It shows the
// table's rows and draws two charts: latency (p50, p99, max, from the schedule) and answers per
// second over time, and the latency histogram. Text from the report is HTML-escaped and the data
// is embedded as JSON that cannot close its script element. renderHtml is pure (uPlot's sources
// are passed in); uplotSources() reads them from the uplot package.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { type Report, reportHeading, reportRows } from './report.ts';

const require = createRequire(import.meta.url);

export function uplotSources(): { js: string; css: string } {
  return {
    js: readFileSync(require.resolve('uplot/dist/uPlot.iife.min.js'), 'utf8'),
    css: readFileSync(require.resolve('uplot/dist/uPlot.min.css'), 'utf8'),
  };
}

const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
/** JSON safe inside a script element (no `</script`, no `<!--`). */
const scriptJson = (value: unknown): string => JSON.stringify(value).replace(/</g, '\\u003c');

/** Draws the two charts from the JSON in #report-data; runs in the page. */
const DRAW = `
const report = JSON.parse(document.getElementById('report-data').textContent);
const width = () => Math.max(480, Math.min(1100, document.body.clientWidth - 32));
const s = report.series;
const overTime = new uPlot({
  width: width(), height: 340,
  scales: { x: { time: false }, ms: { distr: 3 }, rps: {} },
  axes: [
    { label: 's since the start' },
    { scale: 'ms', label: 'latency, ms (log)' },
    { scale: 'rps', side: 1, label: 'answers / s', grid: { show: false } },
  ],
  series: [
    { label: 's' },
    { label: 'p50 ms', scale: 'ms', stroke: '#2ca02c', width: 2 },
    { label: 'p99 ms', scale: 'ms', stroke: '#d62728', width: 2 },
    { label: 'max ms', scale: 'ms', stroke: '#9467bd', width: 1, dash: [4, 4] },
    { label: 'answers/s', scale: 'rps', stroke: '#1f77b4', width: 1 },
  ],
}, [s.tS, s.p50Ms, s.p99Ms, s.maxMs, s.rps], document.getElementById('over-time'));
const h = report.histogram;
const label = (ms) => ms >= 1000 ? (ms / 1000) + ' s' : ms + ' ms';
const histogram = new uPlot({
  width: width(), height: 300,
  scales: { x: { time: false, range: [-0.5, Math.max(0.5, h.count.length - 0.5)] }, y: { distr: 3 } },
  axes: [
    { label: 'latency from the schedule (bucket lower bound)', values: (u, splits) => splits.map((i) => Number.isInteger(i) && h.fromMs[i] !== undefined ? label(h.fromMs[i]) : '') },
    { label: 'requests (log)' },
  ],
  series: [
    { label: 'from', value: (u, i) => i == null || h.fromMs[i] === undefined ? '' : label(h.fromMs[i]) },
    { label: 'requests', stroke: '#1f77b4', fill: 'rgba(31, 119, 180, 0.45)', width: 1, paths: uPlot.paths.bars({ size: [0.9, 40] }), points: { show: false } },
  ],
}, [h.count.map((_, i) => i), h.count.map((c) => c > 0 ? c : null)], document.getElementById('histogram'));
window.loadReportCharts = [overTime, histogram];
`;

export function renderHtml(r: Report, uplot: { js: string; css: string }): string {
  const rows = reportRows(r)
    .map(([k, v]) => `<tr><th scope="row">${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`)
    .join('\n');
  const verdict = r.verdict.pass ? 'PASS' : `FAIL: ${r.verdict.failures.join('; ')}`;
  const title = `Load report ${r.runId}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${uplot.css}</style>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 16px; color: #222; }
table { border-collapse: collapse; margin: 12px 0; }
th, td { text-align: left; padding: 3px 10px; border-bottom: 1px solid #ddd; vertical-align: top; }
th { white-space: nowrap; }
.pass { color: #176117; } .fail { color: #a31515; }
figure { margin: 20px 0; } figcaption { font-weight: 600; margin-bottom: 4px; }
</style>
</head>
<body>
<h1>${escapeHtml(title)}</h1>
<p>${escapeHtml(reportHeading(r))} · ${escapeHtml(r.startedAt)} to ${escapeHtml(r.finishedAt)}</p>
<p class="${r.verdict.pass ? 'pass' : 'fail'}"><strong>${escapeHtml(verdict)}</strong></p>
<table>
${rows}
</table>
<figure><figcaption>Latency over time (from each request's scheduled time; by when the answer came) and answers per second</figcaption><div id="over-time"></div></figure>
<figure><figcaption>Latency histogram (from each request's scheduled time)</figcaption><div id="histogram"></div></figure>
<script id="report-data" type="application/json">${scriptJson(r)}</script>
<script>${uplot.js}</script>
<script>${DRAW}</script>
</body>
</html>
`;
}
