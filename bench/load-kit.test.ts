// The load kit end to end against `npm start` (bin/start.ts in a child process), run as an SRE
// runs it: `npm run bench -- load` in a process of its own. Links are created through the API,
// 15 s at 2,000/s are sent, and the report's figures must agree with the service's own counters
// (Prometheus redirector_requests_total, redirector_events_handed_off_total) and with the
// analytics API read here independently of the kit. Then the exit codes: 1 when errors exceed
// --max-errors and when stored ≠ served, 2 with one line on bad arguments or an unreachable target;
// and an https target whose certificate is checked.
import { execFile } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../shared/net/free-port.ts';
import { type ApiFixture, bootApi, type Org } from '../test/support/api-fixture.ts';
import { tempDataDir } from '../test/support/service-process.ts';
import type { Report } from './load/report.ts';

const ROOT = join(import.meta.dirname, '..');
const execFileP = promisify(execFile);

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

async function load(...args: string[]): Promise<Outcome> {
  return loadWith({}, ...args);
}

async function loadWith(env: Record<string, string>, ...args: string[]): Promise<Outcome> {
  try {
    const { stdout, stderr } = await execFileP(process.execPath, ['--import', 'tsx', 'bench/run.ts', 'load', ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      timeout: 240_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

/** The sum of a Prometheus counter's samples whose labels include `labels` (e.g. 'outcome="redirect"'). */
async function counter(metricsPort: number, name: string, labels = ''): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  let sum = 0;
  for (const m of text.matchAll(new RegExp(`^${name}(?:\\{([^}]*)\\})? (\\S+)$`, 'gm'))) if ((m[1] ?? '').includes(labels)) sum += Number(m[2]);
  return sum;
}

const utcDay = (offsetDays: number): string => new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);

let fx: ApiFixture;
let org: Org;
let metricsPort: number;
let dir: string;

beforeAll(async () => {
  metricsPort = await freePort();
  fx = await bootApi({ METRICS_PORT: String(metricsPort), TRUST_PROXY: 'true' });
  org = await fx.org('BUSINESS');
  dir = tempDataDir();
});
afterAll(async () => {
  await fx?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('npm run bench -- load against npm start', () => {
  it('creates links through the API, holds 2,000/s for 15 s, and its report agrees with the service counters and the analytics API', async () => {
    const redirectsBefore = await counter(metricsPort, 'redirector_requests_total', 'outcome="redirect"');
    const handedOffBefore = await counter(metricsPort, 'redirector_events_handed_off_total');
    const reportDir = join(dir, 'run');
    const r = await load(
      ...['--target', fx.svc.redirect, '--links', '40', '--api-url', fx.svc.api, '--api-key', org.key],
      ...['--rate', '2000', '--duration', '15s', '--forwarded-for', '--report', reportDir],
    );
    expect(r.stderr).toBe('');
    expect(r.code, r.stdout).toBe(0);
    const report = JSON.parse(readFileSync(join(reportDir, 'report.json'), 'utf8')) as Report;

    // The kit's own figures: every request of the schedule answered, at the rate.
    expect(report.unit).toBe('ms');
    expect(report.requests).toMatchObject({ scheduled: 30_000, sent: 30_000, answered: 30_000, failed: 0, served: 30_000 });
    expect(report.statuses).toEqual({ '302': 30_000 });
    expect(report.errors).toEqual({});
    expect(report.rate.achievedPerS).toBeGreaterThanOrEqual(0.95 * 2000);
    expect(report.latency.count).toBe(30_000);
    const l = report.latency;
    expect(l.p50Ms).toBeGreaterThan(0);
    expect([l.p50Ms, l.p90Ms, l.p99Ms, l.p999Ms, l.maxMs]).toEqual([...[l.p50Ms, l.p90Ms, l.p99Ms, l.p999Ms, l.maxMs]].sort((a, b) => a - b));
    expect(report.histogram.count.reduce((a, b) => a + b, 0)).toBe(30_000);
    expect(report.series.rps.length).toBeGreaterThanOrEqual(15);
    expect(report.verdict).toEqual({ pass: true, failures: [] });

    // The service's own counters: as many redirects answered and clicks handed to analytics.
    expect((await counter(metricsPort, 'redirector_requests_total', 'outcome="redirect"')) - redirectsBefore).toBe(report.statuses['302']);
    expect((await counter(metricsPort, 'redirector_events_handed_off_total')) - handedOffBefore).toBe(report.requests.served);

    // The analytics API, read here: the kit's stored count, and the 40 links' clicks spread Zipf-like.
    expect(report.analytics).toMatchObject({ served: 30_000, stored: 30_000, settled: true });
    const range = `from=${utcDay(-1)}&to=${utcDay(1)}`;
    const marked = await org.client.get<{ total: number }>(
      `/link/external/v1/analytics/aggregates?groupBy=clickSource&${range}&referrerDomain=${report.analytics!.referrerDomain}`,
    );
    expect(marked.body.response!.total).toBe(report.requests.served);
    const byLink = await org.client.get<{ total: number; data: { key: string; events: number }[] }>(
      `/link/external/v1/analytics/aggregates?groupBy=shortCode&${range}&limit=100`,
    );
    expect(byLink.body.response!.total).toBe(30_000);
    const perLink = byLink.body.response!.data.map((d) => d.events);
    expect(perLink).toHaveLength(40);
    // Zipf(1) over 40 links: the first link about 1 / H(40) ≈ 23% of the visits, the tenth about 2.3%.
    expect(perLink[0]! / 30_000).toBeGreaterThan(0.2);
    expect(perLink[0]! / 30_000).toBeLessThan(0.27);
    expect(perLink[9]! / 30_000).toBeLessThan(0.04);
    const countries = await org.client.get<{ data: { key: string | null }[] }>(`/link/external/v1/analytics/aggregates?groupBy=countryCode&${range}`);
    expect(countries.body.response!.data.filter((d) => d.key !== null).length).toBeGreaterThan(3); // X-Forwarded-For from many places

    // The links were created through the API, named after the run.
    const links = await org.client.list<{ data: { shortLinkName: string; createdVia: string }[]; page: { totalElements: number } }>({ size: 100 });
    expect(links.body.response!.page.totalElements).toBe(40);
    for (const link of links.body.response!.data) {
      expect(link.createdVia).toBe('EXTERNAL');
      expect(link.shortLinkName).toMatch(new RegExp(`^load kit ${report.runId} #\\d+$`));
    }

    // What was printed: progress lines (the output is not a terminal) and the table.
    expect(r.stdout).toMatch(/^ +\d+ s +[\d,]+\/s +p99 [\d.]+ ms +sent [\d,]+/m);
    expect(r.stdout).toContain('offered 2,000/s · achieved');
    expect(r.stdout).toContain('302 × 30,000');
    expect(r.stdout).toContain('served 30,000 · stored 30,000');
    expect(r.stdout.trimEnd().split('\n').at(-1)).toBe('PASS');
    expect(readFileSync(join(reportDir, 'report.html'), 'utf8')).toContain('<div id="over-time">');
  }, 240_000);

  it('exits 1 when errors exceed --max-errors (unknown codes: 404) and when the key counts none of the clicks (stored ≠ served)', async () => {
    const codes = join(dir, 'codes.txt');
    writeFileSync(codes, 'https://sho.rt/no-such-code-1\n');
    const unknown = await load('--target', fx.svc.redirect, '--codes', codes, '--rate', '200', '--duration', '1s', '--report', join(dir, 'unknown'));
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe('');
    expect(unknown.stdout).toContain('404 × 200');
    expect(unknown.stdout).toContain('HTTP 404 × 200');
    expect(unknown.stdout).toMatch(/FAIL: failed requests 100\.0% exceed --max-errors 0\.100%$/m);

    // The clicks go to one organisation's link, the count is asked with another organisation's key.
    const saved = await org.client.save<{ smartLink: string }>({ url: 'https://example.com/other' });
    writeFileSync(codes, `${saved.body.response!.smartLink}\n`);
    const other = await fx.org('PRO', { label: 'other org' });
    const wrongKey = await load(
      ...['--target', fx.svc.redirect, '--codes', codes, '--api-url', fx.svc.api, '--api-key', other.key],
      ...['--rate', '100', '--duration', '1s', '--report', join(dir, 'wrong-key')],
    );
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.stdout).toContain('302 × 100');
    expect(wrongKey.stdout).toMatch(/served 100 · stored 0 \(settled [\d.]+ s after the run/);
    expect(wrongKey.stdout).toContain('FAIL: stored 0 ≠ served 100');
    expect(wrongKey.stdout).toContain('no click of this run was found');
    const report = JSON.parse(readFileSync(join(dir, 'wrong-key', 'report.json'), 'utf8')) as Report;
    expect(report.verdict.pass).toBe(false);
  }, 120_000);

  it('exits 2 with one line on bad arguments, a refused key or an unreachable target, measuring nothing', async () => {
    const closedPort = await freePort();
    writeFileSync(join(dir, 'one-code.txt'), 'abc1234\n');
    const cases: [string[], RegExp][] = [
      [
        ['--target', fx.svc.redirect, '--links', '3', '--rate', 'fast', '--api-url', fx.svc.api, '--api-key', org.key],
        /^load: --rate must be a positive number/,
      ],
      [
        ['--target', fx.svc.redirect, '--links', '3', '--api-url', fx.svc.api, '--api-key', 'slk_wrong'],
        /^load: the API answered POST .*bulkSave with HTTP 401 SML003 Invalid API key$/,
      ],
      [
        ['--target', `http://127.0.0.1:${closedPort}`, '--codes', join(dir, 'one-code.txt')],
        /^load: cannot connect to --target http:\/\/127\.0\.0\.1:\d+\/: connection refused$/,
      ],
      [['--target', fx.svc.redirect, '--codes', join(dir, 'missing.txt')], /^load: cannot read --codes .*missing\.txt: ENOENT$/],
    ];
    for (const [args, line] of cases) {
      const r = await load(...args, '--report', join(dir, 'refused'));
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr.trimEnd()).toMatch(line);
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(r.stdout).toBe('');
    }
  }, 120_000);

  it('drives an https target, verifying its certificate (NODE_EXTRA_CA_CERTS trusts a private CA)', async () => {
    const key = join(dir, 'tls-key.pem');
    const cert = join(dir, 'tls-cert.pem');
    await execFileP('openssl', [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost',
    ]);
    const server = createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (_req, res) => {
      res.writeHead(302, { location: 'https://example.com/' });
      res.end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const target = `https://localhost:${(server.address() as AddressInfo).port}`;
      writeFileSync(join(dir, 'tls-codes.txt'), 'abc1234\n');
      const args = [
        '--target',
        target,
        '--codes',
        join(dir, 'tls-codes.txt'),
        '--rate',
        '100',
        '--duration',
        '1s',
        '--connections',
        '4',
        '--report',
        join(dir, 'tls'),
      ];
      // Four connections: 64 TLS handshakes in the run's one second made it miss its rate on a loaded host.
      const trusted = await loadWith({ NODE_EXTRA_CA_CERTS: cert }, ...args);
      expect(trusted.code, trusted.stderr).toBe(0);
      expect(trusted.stdout).toContain('302 × 100');
      const untrusted = await load(...args);
      expect(untrusted.code).toBe(2);
      expect(untrusted.stderr.trimEnd()).toBe(`load: cannot connect to --target ${target}/: TLS (DEPTH_ZERO_SELF_SIGNED_CERT)`);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  }, 60_000);
});
