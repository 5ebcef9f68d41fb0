// Invariant: the walk-through in a real Chromium against a booted `npm start`: an owner
// invite from the admin CLI → a password and 2FA → an API key, shown once with a copy button,
// that works on the API and stops within a second of its revocation → a mobile app → a custom
// domain verified against a DNS server the test runs → a link on it with a deep link, listed by
// the API as INTERNAL → archived, and the redirector answers 410 within a
// second → a viewer invited on the Members page sees links and gets 403 creating one → an
// invitation past the seats is refused with QE001 SEATS. Each page passes axe-core.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totpCode } from '../../shared/accounts/totp.ts';
import { type ApiFixture, bootApi } from '../support/api-fixture.ts';
import { axeViolations, hasChromium, launchBrowser, newPage, screenshot } from '../support/browser.ts';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.ts';
import { send, until } from '../support/http-request.ts';
import { apiClient } from '../support/service-process.ts';

const PASSWORD = 'a long enough passphrase';
let fx: ApiFixture;
let browser: Browser;
let page: Page;
let orgId: string;
let apiKey = '';
let viewerInvite = '';
let dns: TestDnsServer;

async function expectAccessible(p: Page): Promise<void> {
  await expect.poll(() => p.getByRole('heading', { level: 1 }).count()).toBe(1);
  expect(await axeViolations(p)).toEqual([]);
}

async function nav(p: Page, name: string): Promise<void> {
  await p.getByRole('navigation', { name: 'Main' }).getByRole('link', { name }).click();
  await p.getByRole('heading', { level: 1 }).first().waitFor();
}

describe.skipIf(!hasChromium)('the dashboard walk-through in Chromium', () => {
  beforeAll(async () => {
    dns = await startDnsServer();
    [fx, browser] = await Promise.all([bootApi({ DNS_SERVERS: dns.address }), launchBrowser()]);
    orgId = (await fx.svc.admin<{ id: string }>('org', 'create', '--name', 'Acme <b>&', '--plan', 'PRO')).id;
    const { context, page: p } = await newPage(browser);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: fx.svc.dashboard });
    page = p;
  });
  afterAll(async () => {
    await browser?.close();
    await fx?.close();
    await dns?.close();
  });

  it('1. the owner follows the CLI invite, sets a password and turns on 2FA', async () => {
    const { inviteUrl } = await fx.svc.admin<{ inviteUrl: string }>('user', 'invite', '--org', orgId, '--email', 'owner@acme.test', '--role', 'owner');
    await page.goto(inviteUrl);
    await page.getByRole('heading', { level: 1, name: 'Join Acme <b>&' }).waitFor();
    await page.getByLabel('Choose a password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { level: 1, name: 'Your account' }).waitFor();
    await page.getByLabel('Password to set it up').fill(PASSWORD);
    await page.getByRole('button', { name: 'Set up two-factor authentication' }).click();
    const key = (await page.locator('code').first().textContent()) ?? '';
    await page.getByLabel('Code from the app').fill(totpCode(key, Date.now()));
    await page.getByRole('button', { name: 'Turn on two-factor authentication' }).click();
    await page.getByRole('list', { name: 'Recovery codes' }).waitFor();
    await expectAccessible(page);
  });

  it('2. creates an API key, copies it from the dialog, uses it on the API; revoking stops it within a second', async () => {
    await nav(page, 'API keys');
    await expectAccessible(page);
    await page.getByLabel('Label').fill('Walkthrough key');
    await page.getByRole('button', { name: 'Create key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Your new API key' });
    await dialog.waitFor();
    apiKey = await dialog.getByLabel('API key').inputValue();
    expect(apiKey).toMatch(/^slk_/);
    await dialog.getByRole('button', { name: 'Copy key' }).click();
    await expect.poll(() => dialog.getByRole('status').textContent()).toBe('Copied to the clipboard.');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(apiKey);
    await expectAccessible(page);
    await screenshot(page, 'dashboard-key-dialog.png');
    await dialog.getByRole('button', { name: 'Done' }).click();
    expect(await page.content()).not.toContain(apiKey);

    const api = apiClient(fx.svc.api, apiKey);
    expect((await api.list()).status).toBe(200);
    // analytics:delete is offered but never ticked by default: this key cannot purge.
    expect(await page.getByLabel('analytics:delete').isChecked()).toBe(false);
    const purge = (k: string) =>
      fetch(`${fx.svc.api}/link/external/v1/analytics/events/purge`, {
        method: 'POST',
        headers: { 'x-api-key': k, 'content-type': 'application/json' },
        body: JSON.stringify({ from: '2026-01-01', to: '2026-01-01', dryRun: true }),
      });
    expect((await purge(apiKey)).status).toBe(403);
    // A label already taken is explained next to the field, and what was typed stays.
    await page.getByLabel('Label').fill('Walkthrough key');
    await page.getByRole('button', { name: 'Create key' }).click();
    await expect.poll(() => page.getByLabel('Label').getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByLabel('Label').inputValue()).toBe('Walkthrough key');

    await page.getByLabel('Label').fill('Second key');
    await page.getByLabel('analytics:delete').check();
    await page.getByRole('button', { name: 'Create key' }).click();
    const second = await page.getByRole('dialog', { name: 'Your new API key' }).getByLabel('API key').inputValue();
    await page.getByRole('button', { name: 'Done' }).click();
    expect((await purge(second)).status).toBe(200); // ticked, it may
    await page.getByRole('button', { name: 'Revoke Second key' }).click();
    await page.getByRole('dialog', { name: 'Revoke Second key?' }).getByRole('button', { name: 'Revoke key' }).click();
    await expect.poll(() => page.getByRole('row', { name: /Second key/ }).textContent()).toContain('Revoked');
    const revokedAt = Date.now();
    const secondApi = apiClient(fx.svc.api, second);
    let status = 0;
    while (Date.now() - revokedAt < 1_000) {
      status = (await secondApi.list()).status;
      if (status === 401) break;
    }
    expect(status).toBe(401);
  });

  let appId = '';
  it('3a. registers a mobile app (a bad store URL is explained next to the field)', async () => {
    await nav(page, 'Mobile apps');
    await page.getByLabel('App name').fill('Acme iOS');
    await page.getByLabel('Store URL', { exact: true }).fill('http://apps.apple.com/app/id1');
    await page.getByRole('button', { name: 'Register app' }).click();
    await expect.poll(() => page.getByLabel('Store URL', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByLabel('App name').inputValue()).toBe('Acme iOS');
    await page.getByLabel('Store URL', { exact: true }).fill('https://apps.apple.com/app/id1');
    await page.getByRole('button', { name: 'Register app' }).click();
    const done = (await page.getByRole('status').filter({ hasText: 'registered' }).textContent()) ?? '';
    appId = /mobileAppId is (\S{12})\./.exec(done)?.[1] ?? '';
    expect(appId).toHaveLength(12);
    await expectAccessible(page);
  });

  it('3. adds a custom domain and sees it verified against the test’s DNS server', async () => {
    await nav(page, 'Domains');
    await page.getByLabel('Domain', { exact: true }).fill('go.acme.test');
    await page.getByRole('button', { name: 'Add domain' }).click();
    const card = page.getByRole('region', { name: 'go.acme.test' });
    await expect.poll(() => card.textContent()).toContain('Pending verification');
    await expectAccessible(page);
    const name = await card.getByLabel('TXT record name for go.acme.test').inputValue();
    const value = await card.getByLabel('TXT record value for go.acme.test').inputValue();
    expect(name).toBe('_shortlink-challenge.go.acme.test');
    dns.setTxt(name, [value]);
    await card.getByRole('button', { name: 'Check go.acme.test now' }).click();
    await expect.poll(() => card.textContent()).toContain('Status: Active');
  });

  it('4–5. creates a link with a deep link (INTERNAL on the API), archives it: 410 within a second', async () => {
    await nav(page, 'Links');
    await page.getByRole('link', { name: 'New link' }).click();
    await page.getByLabel('Destination URL').fill('https://acme.test/launch');
    await page.getByLabel('Short code (optional)').fill('acme-launch');
    await page.getByLabel('Domain', { exact: true }).selectOption('go.acme.test');
    await page.getByRole('button', { name: 'Add a deep link' }).click();
    await page.getByLabel('App', { exact: true }).selectOption(appId);
    await page.getByLabel('Deep link URL').fill('acme://launch');
    await page.getByRole('button', { name: 'Create link' }).click();
    await page.getByRole('heading', { level: 1, name: 'Link acme-launch' }).waitFor();
    const listed = await apiClient(fx.svc.api, apiKey).list<{ data: Record<string, unknown>[] }>({ query: 'shortCode=acme-launch' });
    expect(listed.body.response!.data[0]).toMatchObject({
      smartLink: 'https://go.acme.test/acme-launch',
      createdVia: 'INTERNAL',
      createdBy: 'owner@acme.test',
      deepLinks: [expect.objectContaining({ mobileAppId: appId })],
    });
    // The verified domain serves it on the redirector (the domain's invalidation reached it).
    const redirectPort = Number(new URL(fx.svc.redirect).port);
    await until(async () => (await send(redirectPort, '/acme-launch', { host: 'go.acme.test' })).status === 302, 2_000);

    await page.getByRole('checkbox', { name: /^Active/ }).uncheck();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Saved' }).count()).toBe(1);
    const savedAt = Date.now();
    const port = Number(new URL(fx.svc.redirect).port);
    let status = 0;
    while (Date.now() - savedAt < 1_000) {
      status = (await send(port, '/acme-launch', { host: 'go.acme.test' })).status;
      if (status === 410) break;
    }
    expect(status).toBe(410);
  });

  it('6. invites a viewer on the Members page; the viewer sees links and gets 403 creating one', async () => {
    await nav(page, 'Members');
    await expectAccessible(page);
    await page.getByLabel('E-mail of the person to invite').fill('viewer@acme.test');
    await page.getByLabel('Role', { exact: true }).selectOption('viewer');
    await page.getByRole('button', { name: 'Create invitation' }).click();
    viewerInvite = await page.getByLabel('Invitation link').inputValue();
    expect(viewerInvite).toContain('/invite#');
    const viewer = await newPage(browser);
    try {
      await viewer.page.goto(viewerInvite);
      await viewer.page.getByLabel('Choose a password').fill(PASSWORD);
      await viewer.page.getByRole('button', { name: 'Create account' }).click();
      await viewer.page.getByRole('heading', { level: 1, name: 'Your account' }).waitFor();
      await nav(viewer.page, 'Links');
      await expect.poll(() => viewer.page.getByRole('link', { name: /^(?!Analytics of).*acme-launch/ }).count()).toBe(1);
      expect(await viewer.page.getByRole('link', { name: 'New link' }).count()).toBe(0);
      expect(await viewer.page.getByRole('link', { name: 'API keys' }).count()).toBe(0);
      const status = await viewer.page.evaluate(async () => {
        const session = await (await fetch('/api/session')).json();
        const r = await fetch('/api/links', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-csrf-token': session.csrfToken },
          body: JSON.stringify({ url: 'https://acme.test/nope' }),
        });
        return r.status;
      });
      expect(status).toBe(403);
    } finally {
      await viewer.context.close();
    }
  });

  it('7. an invitation past the seats is refused with QE001 SEATS', async () => {
    // PRO: 5 seats. Owner and viewer hold two; three more invitations fill them.
    for (const n of [1, 2, 3]) {
      await page.getByLabel('E-mail of the person to invite').fill(`person${n}@acme.test`);
      await page.getByRole('button', { name: 'Create invitation' }).click();
      await expect.poll(() => page.getByText(`Seats: ${2 + n} of 5 used`).count()).toBe(1);
    }
    await page.getByLabel('E-mail of the person to invite').fill('one-too-many@acme.test');
    await page.getByRole('button', { name: 'Create invitation' }).click();
    await expect.poll(() => page.getByRole('alert').first().textContent()).toContain('Plan quota SEATS exceeded (5/5)');
    expect(await page.getByLabel('E-mail of the person to invite').inputValue()).toBe('one-too-many@acme.test');
    await expectAccessible(page);
  });
});
