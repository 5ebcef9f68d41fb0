// The load kit's report.html in Chromium: a real run of `npm run bench -- load` (in process)
// against a small HTTP server on loopback that holds its answers back for 0.8 s, then the page
// opened from disk (file://) with every network request refused: no console error, no request
// leaves the page, and both charts are drawn (their canvases hold the series' colours, and
// uPlot holds the report's data).
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, launchBrowser, newPage, screenshot } from '../test/support/browser.ts';
import { tempDataDir } from '../test/support/service-process.ts';
import { loadCommand } from './load/load-command.ts';
import type { Report } from './load/report.ts';

let server: Server;
let browser: Browser | null = null;
let dir: string;

beforeAll(async () => {
  dir = tempDataDir();
  const startedAt = Date.now();
  server = createServer((_req, res) => {
    const answer = (): void => {
      res.writeHead(302, { location: 'https://example.com/' });
      res.end();
    };
    const t = Date.now() - startedAt;
    if (t > 1500 && t < 2300) setTimeout(answer, 2300 - t);
    else answer();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  if (hasChromium) browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!hasChromium)('the load report in Chromium', () => {
  it('opens from disk with no network and no console error, and draws latency over time and the histogram', async () => {
    const port = (server.address() as AddressInfo).port;
    const codes = join(dir, 'codes.txt');
    writeFileSync(codes, 'https://sho.rt/first-link\nhttps://sho.rt/second-link\n');
    const out: string[] = [];
    const io = { stdout: { write: (s: string) => out.push(s) > 0 }, stderr: { write: (s: string) => out.push(s) > 0 } };
    const code = await loadCommand(
      ['--target', `http://127.0.0.1:${port}`, '--codes', codes, '--rate', '500', '--duration', '4s', '--connections', '16', '--report', join(dir, 'report')],
      io,
    );
    expect(code, out.join('')).toBe(0);
    const report = JSON.parse(readFileSync(join(dir, 'report', 'report.json'), 'utf8')) as Report;
    expect(report.latency.maxMs).toBeGreaterThan(500); // the held-back answers

    const { context, page } = await newPage(browser!);
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    const network: string[] = [];
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith('file:')) return route.continue();
      network.push(url);
      return route.abort();
    });
    await page.goto(pathToFileURL(join(dir, 'report', 'report.html')).href);
    await page.getByRole('heading', { level: 1, name: `Load report ${report.runId}` }).waitFor();
    await page.waitForFunction(() => (window as unknown as { loadReportCharts?: unknown[] }).loadReportCharts?.length === 2);

    const charts = await page.evaluate(() => {
      const w = window as unknown as { loadReportCharts: { data: unknown[][]; series: { label: string }[] }[] };
      return w.loadReportCharts.map((u, i) => {
        const canvas = document.querySelectorAll<HTMLCanvasElement>('.uplot canvas')[i]!;
        const ctx = canvas.getContext('2d')!;
        const pixels = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
        let coloured = 0; // the series' strokes and fills; axes, grid and text are grey
        for (let p = 0; p < pixels.length; p += 4) {
          const [r, g, b, a] = [pixels[p]!, pixels[p + 1]!, pixels[p + 2]!, pixels[p + 3]!];
          if (a > 0 && Math.max(r, g, b) - Math.min(r, g, b) > 60) coloured++;
        }
        return { points: u.data[0]!.length, series: u.series.map((s) => s.label), width: canvas.width, height: canvas.height, coloured };
      });
    });
    expect(charts).toHaveLength(2);
    const [overTime, histogram] = charts as [(typeof charts)[0], (typeof charts)[0]];
    expect(overTime.series).toEqual(['s', 'p50 ms', 'p99 ms', 'max ms', 'answers/s']);
    expect(overTime.points).toBe(report.series.tS.length);
    expect(overTime.coloured).toBeGreaterThan(300);
    expect(histogram.series).toEqual(['from', 'requests']);
    expect(histogram.points).toBe(report.histogram.count.length);
    expect(histogram.coloured).toBeGreaterThan(300);
    expect(
      await page
        .getByRole('row', { name: /latency/ })
        .first()
        .textContent(),
    ).toContain(`p99 `);
    await screenshot(page, 'load-report.png');
    expect(network).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);
});
