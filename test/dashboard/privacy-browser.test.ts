// Invariant: the Settings page's privacy and retention form in a real Chromium against a booted
// `npm start`: an owner's tracking switches reach live clicks within 5 s; a retention that is not
// a number of days is explained next to its field, keeps what was typed and changes no switch;
// the service's own retention is named; a viewer sees the form disabled and the server refuses
// the change (403). The page passes axe-core (serious, critical).
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptInvite, createInvite } from '../../shared/accounts/invites.ts';
import { type ApiFixture, bootApi, type Org } from '../support/api-fixture.ts';
import { axeViolations, hasChromium, launchBrowser, newPage, signIn } from '../support/browser.ts';
import { send, until } from '../support/http-request.ts';

const PASSWORD = 'a long enough passphrase';
const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
let fx: ApiFixture;
let org: Org;
let browser: Browser;
let page: Page;

type Tracking = { referrer: boolean; userAgent: boolean; geo: string; dnt: boolean };
type OrgJson = { id: string; tracking: Tracking; retentionDays: number | null };

async function member(email: string, role: 'owner' | 'viewer'): Promise<void> {
  const { token } = await createInvite(fx.db.sql, { orgId: org.id, email, role, invitedBy: 'test' });
  await acceptInvite(fx.db.sql, token, { password: PASSWORD });
}

async function stored(): Promise<OrgJson> {
  const { organizations } = await fx.svc.admin<{ organizations: OrgJson[] }>('org', 'list');
  const found = organizations.find((o) => o.id === org.id);
  if (!found) throw new Error('organisation not listed');
  return found;
}

const localDay = (offsetDays: number): string =>
  new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Berlin' }).format(new Date(Date.now() + offsetDays * 86_400_000));

describe.skipIf(!hasChromium)('dashboard privacy settings in Chromium', () => {
  beforeAll(async () => {
    [fx, browser] = await Promise.all([bootApi({ ANALYTICS_RETENTION_DAYS: '400', ANALYTICS_SYNC_SETTLE_MS: '50', TRUST_PROXY: 'true' }), launchBrowser()]);
    org = await fx.org('PRO');
    await member('owner@example.com', 'owner');
    await member('viewer@example.com', 'viewer');
    ({ page } = await newPage(browser));
    await signIn(page, fx.svc.dashboard, 'owner@example.com', PASSWORD);
  });
  afterAll(async () => {
    await browser?.close();
    await fx?.close();
  });

  it('an owner turns the switches; a bad retention is explained next to its field and changes nothing', async () => {
    await page.getByRole('link', { name: 'Settings' }).click();
    const form = page.getByRole('form', { name: 'Privacy and retention' });
    await form.waitFor();
    expect(await form.textContent()).toContain("Empty follows the service's setting: 400 days.");
    expect(await axeViolations(page)).toEqual([]);

    await form.getByLabel('Record the referrer').uncheck();
    await form.getByLabel('Location recorded').selectOption({ label: 'Country only' });
    await form.getByLabel('Honour Do Not Track and Global Privacy Control').check();
    await form.getByLabel('Keep raw events for (days)').fill('0');
    await form.getByRole('button', { name: 'Save privacy settings' }).click();
    await expect.poll(() => form.getByRole('alert').first().textContent()).toContain('from 1 to 36500');
    expect(await form.getByLabel('Keep raw events for (days)').inputValue()).toBe('0');
    expect(await form.getByLabel('Record the referrer').isChecked()).toBe(false);
    expect(await stored()).toMatchObject({ tracking: { referrer: true, userAgent: true, geo: 'city', dnt: false }, retentionDays: null });

    await form.getByLabel('Keep raw events for (days)').fill('90');
    await form.getByRole('button', { name: 'Save privacy settings' }).click();
    await expect.poll(() => page.getByText('Privacy settings saved.').count()).toBe(1);
    expect(await stored()).toMatchObject({ tracking: { referrer: false, userAgent: true, geo: 'country', dnt: true }, retentionDays: 90 });
    await page.reload();
    await form.waitFor();
    expect(await form.getByLabel('Record the referrer').isChecked()).toBe(false);
    expect(await form.getByLabel('Location recorded').inputValue()).toBe('country');
    expect(await form.getByLabel('Keep raw events for (days)').inputValue()).toBe('90');
    expect(await axeViolations(page)).toEqual([]);
  });

  it('the saved switches reach live clicks within 5 s', async () => {
    const code = (await org.client.save<{ shortCode: string }>({ url: 'https://example.com/privacy' })).body.response?.shortCode as string;
    await new Promise((r) => setTimeout(r, 5_000));
    const click = (extra: Record<string, string>) =>
      send(Number(new URL(fx.svc.redirect).port), `/${code}`, {
        host: 'sho.rt',
        headers: { 'user-agent': CHROME, accept: 'text/html', referer: 'https://news.example.org/', 'x-forwarded-for': '8.8.8.8', ...extra },
      });
    expect((await click({})).status).toBe(302);
    expect((await click({ dnt: '1' })).status).toBe(302);
    type Event = Record<string, string | null>;
    let events: Event[] = [];
    await until(
      async () => {
        const r = await org.client.get<{ data: Event[] }>(`/link/external/v1/analytics/events?from=${localDay(-1)}&to=${localDay(1)}&shortCode=${code}`);
        events = r.body.response?.data ?? [];
        return events.length >= 2;
      },
      15_000,
      200,
    );
    const plain = events.find((e) => e.browserName !== null);
    expect(plain).toMatchObject({ referrer: null, referrerDomain: null, countryCode: 'US', city: null, region: null, browserName: 'Chrome' });
    const anonymous = events.find((e) => e.browserName === null);
    expect(anonymous).toMatchObject({ referrer: null, countryCode: null, osName: null, botCategory: null });
  });

  it('a viewer sees the form disabled, and the server refuses the change', async () => {
    const viewer = await newPage(browser);
    await signIn(viewer.page, fx.svc.dashboard, 'viewer@example.com', PASSWORD);
    await viewer.page.getByRole('link', { name: 'Settings' }).click();
    const form = viewer.page.getByRole('form', { name: 'Privacy and retention' });
    await form.waitFor();
    expect(await form.getByLabel('Record the referrer').isDisabled()).toBe(true);
    expect(await form.getByRole('button', { name: 'Save privacy settings' }).count()).toBe(0);
    const status = await viewer.page.evaluate(async () => {
      const session = await (await fetch('/api/session')).json();
      const r = await fetch('/api/org/privacy', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': session.csrfToken },
        body: JSON.stringify({ tracking: { referrer: true, userAgent: true, geo: 'city', dnt: false }, retentionDays: '' }),
      });
      return r.status;
    });
    expect(status).toBe(403);
    expect(await stored()).toMatchObject({ tracking: { referrer: false, geo: 'country', dnt: true }, retentionDays: 90 });
    await viewer.context.close();
  });
});
