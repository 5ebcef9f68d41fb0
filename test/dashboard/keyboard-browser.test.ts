// Invariant: in a real Chromium, the dashboard works by keyboard alone. With DASHBOARD_SIGNUP=open a
// visitor creates an account (and its FREE organisation, which they own) typing, tabbing and
// pressing Enter; then every page of the navigation is reached by Tab and Enter, every visible
// control of it is reached by Tab, in one cycle, and shows a focus outline. With the default
// (invite) the server refuses a sign-up (403) and the page says why.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NAV } from '../../dashboard/web/src/pages/index.ts';
import { axeViolations, hasChromium, launchBrowser, newPage } from '../support/browser.ts';
import { type DashboardApp, startDashboardApp } from '../support/dashboard-app.ts';
import { tabCycle, tabTo } from '../support/keyboard.ts';

const PASSWORD = 'a long enough passphrase';
// Every entry of the navigation (an owner sees them all): a page added to NAV is checked here too.
const PAGES = NAV.map((item) => item.label);

let open: DashboardApp;
let closed: DashboardApp;
let browser: Browser;
let page: Page;

describe.skipIf(!hasChromium)('the dashboard by keyboard; open sign-up', () => {
  beforeAll(async () => {
    [open, closed, browser] = await Promise.all([startDashboardApp({ signUp: 'open' }), startDashboardApp(), launchBrowser()]);
    ({ page } = await newPage(browser));
  });
  afterAll(async () => {
    await browser?.close();
    await open?.close();
    await closed?.close();
  });

  it('with sign-up invite-only (the default) the server refuses it and the page says why', async () => {
    const answer = await closed.client().post('/api/sign-up', { email: 'x@example.com', password: PASSWORD, organisation: 'X' });
    expect(answer.status).toBe(403);
    await page.goto(`${closed.base}/sign-up`);
    await page.getByLabel('Organisation name').fill('Acme');
    await page.getByLabel('E-mail').fill('new@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await expect.poll(() => page.getByRole('alert').first().textContent()).toContain('by invitation only');
    expect(await closed.db.sql`select 1 from users`).toHaveLength(0);
  });

  it('with DASHBOARD_SIGNUP=open a visitor signs up by keyboard and owns a new FREE organisation', async () => {
    await page.goto(`${open.base}/sign-in`);
    await tabTo(page, 'Sign up');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Sign up' }).waitFor();
    await page.getByLabel('Organisation name').focus();
    await page.keyboard.type('Keyboard & Co');
    await page.keyboard.press('Tab');
    await page.keyboard.type('keys@example.com');
    await page.keyboard.press('Tab');
    await page.keyboard.type('too short');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByRole('alert').first().textContent()).toContain('at least 12 characters');
    expect(await page.getByLabel('Organisation name').inputValue()).toBe('Keyboard & Co');
    await page.getByLabel('Password').fill('');
    await page.getByLabel('Password').focus();
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Links' }).waitFor();
    const [row] = await open.db.sql<{ name: string; plan: string; role: string }[]>`
      select o.name, o.plan, m.role from users u join memberships m on m.user_id = u.id join organizations o on o.id = m.org_id
      where u.email = 'keys@example.com'`;
    expect(row).toEqual({ name: 'Keyboard & Co', plan: 'FREE', role: 'owner' });
  });

  it('every page is reached by Tab and Enter, and every control on it by Tab, with a visible focus', async () => {
    for (const name of PAGES) {
      await page.locator('body').focus();
      await tabTo(page, name);
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { level: 1, name }).waitFor();
      const cycle = await tabCycle(page);
      expect(cycle.total, name).toBeGreaterThan(PAGES.length);
      expect({ page: name, unreached: cycle.unreached, noOutline: cycle.noOutline }).toEqual({ page: name, unreached: [], noOutline: [] });
      expect(await axeViolations(page), name).toEqual([]);
    }
    // The check bites: a control taken out of the Tab order, and one whose outline is removed.
    await page.evaluate(() => {
      const main = document.getElementById('main');
      if (!main) throw new Error('no main');
      main.insertAdjacentHTML('beforeend', '<button type="button" tabindex="-1">Unreachable</button><button type="button">Unmarked</button>');
      // The CSP refuses style attributes; the CSSOM is allowed.
      (main.lastElementChild as HTMLElement).style.outline = 'none';
    });
    const probe = await tabCycle(page);
    expect(probe.unreached).toEqual([expect.stringMatching(/:button Unreachable$/)]);
    expect(probe.noOutline).toEqual([expect.stringMatching(/:button Unmarked$/)]);
  });
});
