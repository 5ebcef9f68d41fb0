// Invariant: in a real Chromium at a phone's size (390 × 844, a touch device), an owner of two
// organisations with something on every page reaches each page of the navigation through the
// folded Menu, and the link editor; no page scrolls sideways (the document is no wider than the
// viewport), every visible control is reached by Tab and lies inside the viewport's width, Sign
// out stays in view, and every page passes axe-core. The sign-in and sign-up pages fit too. A
// probe that widens a page fails the width check, so the check bites.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NAV } from '../../dashboard/web/src/pages/index.ts';
import { axeViolations, hasChromium, launchBrowser, signIn } from '../support/browser.ts';
import { type DashboardApp, startDashboardApp } from '../support/dashboard-app.ts';
import { tabCycle } from '../support/keyboard.ts';

const PASSWORD = 'a long enough passphrase';
const PHONE = { width: 390, height: 844 };
const LONG_URL = `https://93.184.215.14/a/rather/long/path/that/does/not/break/${'x'.repeat(80)}?utm_source=newsletter&utm_medium=email`;

let d: DashboardApp;
let browser: Browser;
let context: BrowserContext;
let page: Page;

/** How far the page reaches past the viewport's width (0: it does not scroll sideways). */
const sideways = (p: Page) =>
  p.evaluate(() => Math.max(document.documentElement.scrollWidth, document.body.scrollWidth) - document.documentElement.clientWidth);

/** The visible controls of the page that stick out of the viewport's width. */
const outside = (p: Page) =>
  p.evaluate(() => {
    const selector = 'a[href], button:not([disabled]), input:not([disabled]):not([type=hidden]), select:not([disabled]), textarea:not([disabled])';
    const width = document.documentElement.clientWidth;
    return [...document.querySelectorAll<HTMLElement>(selector)]
      .filter((el) => el.getClientRects().length > 0 && !el.closest('.skip') && !el.closest('.visually-hidden'))
      .filter((el) => {
        const r = el.getBoundingClientRect();
        return r.left < -0.5 || r.right > width + 0.5;
      })
      .map((el) => `${el.tagName.toLowerCase()} ${(el.getAttribute('aria-label') ?? el.textContent ?? '').trim().slice(0, 40)}`);
  });

async function expectFits(p: Page, name: string): Promise<void> {
  expect({ page: name, sideways: await sideways(p), outside: await outside(p) }).toEqual({ page: name, sideways: 0, outside: [] });
}

async function expectReachable(p: Page, name: string, slack?: number): Promise<void> {
  await p.locator('body').focus();
  const cycle = await tabCycle(p, slack);
  expect(cycle.total, name).toBeGreaterThan(1);
  expect({ page: name, unreached: cycle.unreached, noOutline: cycle.noOutline }).toEqual({ page: name, unreached: [], noOutline: [] });
  expect(await axeViolations(p), name).toEqual([]);
}

describe.skipIf(!hasChromium)('the dashboard on a phone (390 px)', () => {
  beforeAll(async () => {
    [d, browser] = await Promise.all([startDashboardApp(), launchBrowser()]);
    const orgId = await d.org('PRO');
    const other = await d.org('BUSINESS');
    await d.client().accept(await d.invite(orgId, 'owner-with-a-long-address@phone.example.com', 'owner'), PASSWORD);
    await d.client().accept(await d.invite(other, 'owner-with-a-long-address@phone.example.com', 'owner'), PASSWORD);
    const owner = d.client();
    await owner.signIn('owner-with-a-long-address@phone.example.com', PASSWORD);
    // Something on every page: a link with a long destination, a key, an app, a domain, a webhook
    // with a long URL, a pending invitation.
    for (const body of [
      ['/api/links', { url: LONG_URL, shortCode: 'phone-link-1', shortLinkName: 'A link with a name', utmSource: 'newsletter' }],
      ['/api/keys', { label: 'Phone key', scopes: ['links:read'] }],
      ['/api/apps', { name: 'Acme', platform: 'IOS', storeUrl: 'https://apps.apple.com/app/id123456789' }],
      ['/api/domains', { host: 'go.phone-example.com' }],
      ['/api/webhooks', { url: LONG_URL, eventTypes: ['link.created'] }],
      ['/api/invites', { email: 'someone-invited@phone.example.com', role: 'member' }],
    ] as const) {
      const answer = await owner.post(body[0], body[1]);
      expect(answer.status, body[0]).toBeLessThan(300);
    }
    context = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true, deviceScaleFactor: 3, locale: 'en-GB' });
    page = await context.newPage();
    page.setDefaultTimeout(10_000);
    await signIn(page, d.base, 'owner-with-a-long-address@phone.example.com', PASSWORD);
  });
  afterAll(async () => {
    await browser?.close();
    await d?.close();
  });

  it('the sign-in and sign-up pages fit the phone', async () => {
    for (const path of ['/sign-in', '/sign-up']) {
      await page.goto(`${d.base}${path}`);
      await page.getByRole('heading', { level: 1 }).waitFor();
      await expectFits(page, path);
      await expectReachable(page, path);
    }
  });

  it('the navigation folds behind Menu; each page fits, every control is reached by Tab, Sign out in view', async () => {
    await page.goto(`${d.base}/links`);
    const menu = page.getByRole('button', { name: 'Menu' });
    const nav = page.getByRole('navigation', { name: 'Main' });
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    expect(await nav.isVisible()).toBe(false);
    // Open, the navigation's links are reached by Tab too.
    await menu.click();
    expect(await menu.getAttribute('aria-expanded')).toBe('true');
    await expectFits(page, 'menu open');
    await expectReachable(page, 'menu open');
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await menu.click();
    expect(await nav.isVisible()).toBe(false);

    for (const { label } of NAV) {
      // The last Tab cycle may end on the skip link, which shows over the header while focused.
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
      await menu.click();
      await nav.getByRole('link', { name: label }).click();
      await page.getByRole('heading', { level: 1, name: label }).waitFor();
      await expect.poll(() => menu.getAttribute('aria-expanded')).toBe('false');
      expect(await nav.isVisible(), label).toBe(false);
      // Its data in (no request for half a second).
      await page.waitForLoadState('networkidle');
      await expectFits(page, label);
      await expectReachable(page, label);
      expect(await page.getByRole('button', { name: 'Sign out', exact: true }).isVisible(), label).toBe(true);
    }
  });

  it('the link editor and a new link fit the phone', async () => {
    for (const [path, heading] of [
      ['/links/phone-link-1', 'Link phone-link-1'],
      ['/links/new', 'New link'],
    ] as const) {
      await page.goto(`${d.base}${path}`);
      await page.getByRole('heading', { level: 1, name: heading }).waitFor();
      await page.waitForLoadState('networkidle');
      await page.getByRole('button', { name: 'Add a rule' }).click();
      await expectFits(page, path);
      // Two date-time inputs (expiry, the simulator's time) take a Tab for each part.
      await expectReachable(page, path, 24);
    }
  });

  it('the check bites: a page wider than the phone is caught; Sign out works from the header', async () => {
    await page.goto(`${d.base}/links`);
    await page.getByRole('heading', { level: 1, name: 'Links' }).waitFor();
    await page.evaluate(() => {
      const main = document.getElementById('main');
      if (!main) throw new Error('no main');
      const wide = document.createElement('div');
      wide.textContent = 'wide';
      const off = document.createElement('button');
      off.type = 'button';
      off.textContent = 'Off screen';
      // The CSP refuses style attributes; the CSSOM is allowed.
      wide.style.width = '800px';
      off.style.marginLeft = '500px';
      main.append(wide, off);
    });
    expect(await sideways(page)).toBeGreaterThan(0);
    expect(await outside(page)).toEqual(['button Off screen']);
    await page.reload();
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
  });
});
