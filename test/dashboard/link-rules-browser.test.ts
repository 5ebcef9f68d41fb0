// Invariant: the link editor's rules part in a real Chromium against a booted `npm start`: a link
// created with a click limit, a password and two rules built in the rule builder is saved as the
// API reads it (passwordProtected, never the password); an invalid rule value is explained next
// to that condition without losing what was typed; the simulator answers what the redirector
// does (the matched rule), and the redirector agrees. Every state passes axe-core.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptInvite, createInvite } from '../../shared/accounts/invites.ts';
import { type ApiFixture, bootApi, type Org } from '../support/api-fixture.ts';
import { axeViolations, hasChromium, launchBrowser, newPage, signIn } from '../support/browser.ts';

const PASSWORD = 'a long enough passphrase';
const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';
let fx: ApiFixture;
let org: Org;
let browser: Browser;
let page: Page;

describe.skipIf(!hasChromium)('link rules in the dashboard editor', () => {
  beforeAll(async () => {
    [fx, browser] = await Promise.all([bootApi(), launchBrowser()]);
    org = await fx.org('PRO');
    const { token } = await createInvite(fx.db.sql, { orgId: org.id, email: 'rules@example.com', role: 'owner', invitedBy: 'test' });
    await acceptInvite(fx.db.sql, token, { password: PASSWORD });
    ({ page } = await newPage(browser));
    await signIn(page, fx.svc.dashboard, 'rules@example.com', PASSWORD);
  });
  afterAll(async () => {
    await browser?.close();
    await fx?.close();
  });

  it('builds rules, explains a bad one by its condition, saves, and simulates what the redirector does', async () => {
    await page.goto(`${fx.svc.dashboard}/links/new`);
    await page.getByRole('heading', { level: 1, name: 'New link' }).waitFor();
    await page.getByLabel('Destination URL').fill('https://example.com/home');
    await page.getByLabel('Short code (optional)').fill('rules-in-browser');
    await page.getByLabel('Maximum clicks').fill('100');
    await page.getByLabel('Password', { exact: true }).fill('open sesame');

    await page.getByRole('button', { name: 'Add a rule' }).click();
    await page.getByLabel('Rule 1, condition 1: device').selectOption('IOS');
    await page.getByLabel('Rule 1: send to URL').fill('https://example.com/ios');
    await page.getByRole('button', { name: 'Add a rule' }).click();
    await page.getByLabel('Rule 2, condition 1', { exact: true }).selectOption('language');
    await page.getByLabel('Rule 2, condition 1: value').fill('de-DE!');
    await page.getByLabel('Rule 2: send to URL').fill('https://example.com/de');
    expect(await axeViolations(page)).toEqual([]);

    await page.getByRole('button', { name: 'Create link' }).click();
    const value = page.getByLabel('Rule 2, condition 1: value');
    await expect.poll(() => value.getAttribute('aria-invalid')).toBe('true');
    expect(await value.inputValue()).toBe('de-DE!');
    expect(await page.getByLabel('Rule 1: send to URL').inputValue()).toBe('https://example.com/ios');
    expect(await axeViolations(page)).toEqual([]);

    await value.fill('de');
    await page.getByRole('button', { name: 'Create link' }).click();
    await page.getByRole('heading', { level: 1, name: 'Link rules-in-browser' }).waitFor();
    const listed = await org.client.list<{ data: Record<string, unknown>[] }>({ query: 'shortCode=rules-in-browser' });
    const saved = listed.body.response?.data[0];
    expect(saved).toMatchObject({ maxClicks: 100, passwordProtected: true, rules: [{ url: 'https://example.com/ios' }, { url: 'https://example.com/de' }] });
    expect(JSON.stringify(saved)).not.toContain('open sesame');
    expect(await page.getByLabel('New password').inputValue()).toBe('');

    // The password stops the simulated visitor; removed, the simulator shows the rules.
    await page.getByLabel("Visitor's device").selectOption('iphone');
    await page.getByRole('button', { name: 'Simulate' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'password' }).count()).toBe(1);
    await page.getByLabel('Remove the password').check();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => page.getByText(/^Saved:/).count()).toBe(1);
    await page.getByRole('button', { name: 'Simulate' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'rule 1' }).textContent()).toBe('Redirect by a rule (rule 1): https://example.com/ios');
    await page.getByLabel("Visitor's device").selectOption('desktop');
    await page.getByLabel('Accept-Language').fill('de-AT,en;q=0.5');
    await page.getByRole('button', { name: 'Simulate' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'rule 2' }).textContent()).toBe('Redirect by a rule (rule 2): https://example.com/de');
    expect(await axeViolations(page)).toEqual([]);

    const visit = await fetch(`${fx.svc.redirect}/rules-in-browser`, { redirect: 'manual', headers: { 'user-agent': IPHONE } });
    expect(visit.headers.get('location')).toBe('https://example.com/ios');
  });
});
