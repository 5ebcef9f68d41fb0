// Invariant: the Analytics page in a real Chromium against a booted service whose ClickHouse is
// the test's stand-in (so the test writes the events it then reads): the uPlot chart is drawn on
// its canvas, its hidden data table equals the public API's aggregates for the same range,
// clicking a top-list row filters both (and the URL), the keyboard does the same, export buttons
// download the range where the plan has ANALYTICS_EXPORT, a link's page is reached from the
// Links list, and every state passes axe-core (serious, critical).
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptInvite, createInvite } from '../../shared/accounts/invites.ts';
import { eventRecord } from '../../shared/analytics/events/analytics-fixtures.ts';
import type { EventRecord } from '../../shared/analytics/events/analytics-event.ts';
import type { AnalyticsStore } from '../../shared/analytics/store/analytics-store.ts';
import { openHttpStore } from '../support/analytics-stores.ts';
import { type ApiFixture, bootApi, type Org } from '../support/api-fixture.ts';
import { axeViolations, hasChromium, launchBrowser, newPage, signIn } from '../support/browser.ts';
import { startFakeClickHouse, type FakeClickHouse } from '../support/fake-clickhouse-http.ts';

const PASSWORD = 'a long enough passphrase';
const ZONE = 'Europe/Berlin';
let fx: ApiFixture;
let ch: FakeClickHouse;
let store: AnalyticsStore;
let org: Org;
let browser: Browser;
let page: Page;
/** Console reports of anything the page's CSP refused (uPlot must need no inline script or style). */
const cspReports: string[] = [];
const dir = mkdtempSync(join(process.cwd(), '.tmp', 'analytics-browser-'));

const localDay = (ms: number) => new Intl.DateTimeFormat('en-CA', { timeZone: ZONE, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date(ms));
const addDays = (date: string, n: number) => new Date(Date.parse(`${date}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);

type Aggregates = { total: number; data: { key: string | null; events: number }[] };
/** The API's aggregates; people only unless `q` says otherwise, as the page shows by default. */
async function api(q: Record<string, string>): Promise<Aggregates> {
  const r = await org.client.get(`/link/external/v1/analytics/aggregates?${new URLSearchParams({ bots: 'exclude', ...q })}`);
  expect(r.status).toBe(200);
  return r.body.response as Aggregates;
}

/** The hidden data table of the chart as [start, events] rows. */
async function chartTable(p: Page): Promise<[string, number][]> {
  const rows = p.getByRole('table', { name: /by day$/ }).locator('tbody tr');
  return (await rows.evaluateAll((trs) => trs.map((tr) => [tr.querySelector('th')?.textContent ?? '', Number(tr.querySelector('td')?.textContent)]))) as [
    string,
    number,
  ][];
}

/** True when the chart's canvas has painted pixels. */
const chartDrawn = (p: Page) =>
  p.locator('[data-chart="time-series"] canvas').evaluate((c: HTMLCanvasElement) => {
    if (c.width === 0 || c.height === 0) return false;
    const pixels = c.getContext('2d')?.getImageData(0, 0, c.width, c.height).data ?? [];
    for (let i = 3; i < pixels.length; i += 4) if ((pixels[i] ?? 0) > 0) return true;
    return false;
  });

async function expectAccessible(p: Page): Promise<void> {
  await expect.poll(() => p.getByRole('heading', { level: 1 }).count()).toBe(1);
  expect(await axeViolations(p)).toEqual([]);
}

describe.skipIf(!hasChromium)('dashboard analytics in Chromium', () => {
  const today = localDay(Date.now());
  const from = addDays(today, -6);
  let events: EventRecord[];

  beforeAll(async () => {
    ch = await startFakeClickHouse(join(dir, 'ch'));
    [fx, browser] = await Promise.all([bootApi({ CLICKHOUSE_URL: ch.url }), launchBrowser()]);
    store = await openHttpStore(ch.url);
    org = await fx.org('BUSINESS');
    await org.client.save({ url: 'https://example.com/a', shortCode: 'chart-link-a' });
    // 240 clicks over the last five days (and one preview, which the page does not count).
    const now = Date.now();
    events = Array.from({ length: 240 }, (_, i) =>
      eventRecord({
        orgId: org.id,
        createdAtMicros: String(BigInt(now - ((i * 7919) % (4 * 86_400_000)) - 60_000) * 1000n),
        shortCode: i % 3 === 0 ? 'chart-link-b' : 'chart-link-a',
        countryCode: ['DE', 'US', 'IN', null][i % 4] ?? null,
        deviceType: i % 5 === 0 ? 'MOBILE' : 'DESKTOP',
        browserName: i % 2 ? 'Firefox' : 'Chrome',
        // 60 people, each four times (a visitor id is an organisation's day's; these stand for one range)
        visitorId: (i % 60).toString(16).padStart(16, '0'),
      }),
    );
    events.push(eventRecord({ orgId: org.id, createdAtMicros: String(BigInt(now - 60_000) * 1000n), eventType: 'METADATA_PREVIEW' }));
    // 12 clicks by a mail scanner, which the page leaves out until asked.
    for (let i = 0; i < 12; i++)
      events.push(
        eventRecord({
          orgId: org.id,
          createdAtMicros: String(BigInt(now - 120_000 - i * 1000) * 1000n),
          shortCode: 'chart-link-a',
          botCategory: 'MAIL_SCANNER',
        }),
      );
    await store.insert(events, randomUUID());
    const { token } = await createInvite(fx.db.sql, { orgId: org.id, email: 'analyst@example.com', role: 'viewer', invitedBy: 'test' });
    await acceptInvite(fx.db.sql, token, { password: PASSWORD });
    ({ page } = await newPage(browser));
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) cspReports.push(m.text());
    });
    await signIn(page, fx.svc.dashboard, 'analyst@example.com', PASSWORD);
  });

  afterAll(async () => {
    await browser?.close();
    await fx?.close();
    await store?.close();
    await ch?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('draws the series with uPlot; its hidden table is the API’s answer; the previous period is compared', async () => {
    await page.getByRole('link', { name: 'Analytics', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Analytics' }).waitFor();
    await expect.poll(() => chartDrawn(page)).toBe(true);
    const want = await api({ groupBy: 'time', from, to: today });
    expect(want.total).toBe(240);
    await expect.poll(() => chartTable(page)).toEqual(want.data.map((b) => [b.key, b.events]));
    expect(await page.getByRole('img', { name: /240 events by day/ }).count()).toBe(1);
    expect(await page.getByRole('status').filter({ hasText: '240 events' }).textContent()).toContain('previous period');
    // Visitors beside the events: the API's metric=visitors total for the same range.
    const people = await api({ groupBy: 'time', from, to: today, metric: 'visitors' });
    expect(people.total).toBe(60);
    expect(await page.getByText('60 visitors').count()).toBe(1);
    const countries = page.getByRole('table', { name: 'Countries' });
    expect(await countries.getByRole('button').allTextContents()).toEqual(['DE', 'IN', 'US']);
    expect(await countries.getByRole('row', { name: /Unknown/ }).count()).toBe(1);
    expect(cspReports).toEqual([]);
    await expectAccessible(page);
  });

  it('clicking a top-list row filters the chart, its table, the lists and the URL', async () => {
    await page.getByRole('button', { name: 'Filter by Countries: DE' }).click();
    await expect.poll(() => page.url()).toContain('countryCode=DE');
    const want = await api({ groupBy: 'time', from, to: today, countryCode: 'DE' });
    expect(want.total).toBe(60);
    await expect.poll(() => chartTable(page)).toEqual(want.data.map((b) => [b.key, b.events]));
    await expect.poll(() => page.getByRole('img', { name: /60 events by day/ }).count()).toBe(1);
    expect(await chartDrawn(page)).toBe(true);
    expect(await page.getByRole('table', { name: 'Countries' }).getByRole('button').allTextContents()).toEqual(['DE']);
    await expectAccessible(page);
    await page.getByRole('button', { name: 'Remove filter countryCode: DE' }).click();
    await expect.poll(() => page.getByRole('img', { name: /240 events by day/ }).count()).toBe(1);
  });

  it('works by keyboard: Tab to a row of a top list and Enter filters by it', async () => {
    const target = 'Filter by Device types: MOBILE';
    await page.getByRole('heading', { level: 1 }).click();
    let found = false;
    for (let i = 0; i < 80 && !found; i++) {
      await page.keyboard.press('Tab');
      found = (await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))) === target;
    }
    expect(found).toBe(true);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.url()).toContain('deviceType=MOBILE');
    const want = await api({ groupBy: 'time', from, to: today, deviceType: 'MOBILE' });
    await expect.poll(() => chartTable(page)).toEqual(want.data.map((b) => [b.key, b.events]));
    await page.getByRole('button', { name: 'Remove filter deviceType: MOBILE' }).click();
  });

  it('shows people by default; the Visits switch shows bots only, or everyone, and the Bots list names people', async () => {
    expect(await page.getByRole('button', { name: 'People', pressed: true }).count()).toBe(1);
    await page.getByRole('button', { name: 'Bots', exact: true }).click();
    await expect.poll(() => page.url()).toContain('bots=only');
    await expect.poll(() => page.getByRole('img', { name: /12 events by day/ }).count()).toBe(1);
    expect(await page.getByRole('table', { name: 'Bots' }).getByRole('button').allTextContents()).toEqual(['MAIL_SCANNER']);
    await expectAccessible(page);
    await page.getByRole('button', { name: 'Everyone' }).click();
    await expect.poll(() => page.getByRole('img', { name: /252 events by day/ }).count()).toBe(1);
    const bots = page.getByRole('table', { name: 'Bots' });
    expect(await bots.getByRole('row', { name: /People/ }).textContent()).toContain('240');
    const want = await api({ groupBy: 'time', from, to: today, bots: 'include' });
    expect(want.total).toBe(252);
    await expect.poll(() => chartTable(page)).toEqual(want.data.map((b) => [b.key, b.events]));
    await page.getByRole('button', { name: 'People' }).click();
    await expect.poll(() => page.getByRole('img', { name: /240 events by day/ }).count()).toBe(1);
  });

  it('ranges: 30 days and a custom range; a range over 186 days is explained next to the field', async () => {
    await page.getByRole('button', { name: '30 days' }).click();
    await expect.poll(() => chartTable(page).then((r) => r.length)).toBe(30);
    await page.getByLabel('First day').fill(addDays(today, -2));
    await page.getByLabel('Last day').fill(today);
    await page.getByRole('button', { name: 'Show custom range' }).click();
    await expect.poll(() => chartTable(page).then((r) => r.length)).toBe(3);
    await page.getByLabel('First day').fill('2020-01-01');
    await page.getByRole('button', { name: 'Show custom range' }).click();
    await expect.poll(() => page.getByLabel('First day').getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByRole('alert').first().textContent()).toContain('186 days');
    expect(await page.getByLabel('First day').inputValue()).toBe('2020-01-01');
    await expectAccessible(page);
  });

  it('a link’s analytics from the Links list; export buttons download its events (BUSINESS)', async () => {
    await page.goto(`${fx.svc.dashboard}/links`);
    await page.getByRole('link', { name: 'Analytics of chart-link-a' }).click();
    await page.getByRole('heading', { level: 1, name: 'Analytics of chart-link-a' }).waitFor();
    const want = await api({ groupBy: 'time', from, to: today, shortCode: 'chart-link-a' });
    expect(want.total).toBe(160);
    await expect.poll(() => chartTable(page)).toEqual(want.data.map((b) => [b.key, b.events]));
    const href = await page.getByRole('link', { name: 'Export events (CSV)' }).getAttribute('href');
    expect(href).toContain('shortCode=chart-link-a');
    expect(href).toContain('bots=exclude');
    const csv = await page.context().request.get(`${fx.svc.dashboard}${href}`);
    expect(csv.status()).toBe(200);
    expect((await csv.text()).trim().split('\r\n')).toHaveLength(1 + 160);
    await expectAccessible(page);
  });
});
