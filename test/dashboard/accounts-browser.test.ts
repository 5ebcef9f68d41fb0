// Invariant: in a real Chromium, against a booted `npm start` (bin/start.ts): the printed owner
// invite leads a new user to a password and 2FA; sign-out and sign-in with a TOTP code work by
// keyboard and mouse alike; a session that ended mid-use goes back to sign-in and then to the
// page the user was on; every page has one h1 and no serious or critical axe-core violation.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totpCode } from '../../shared/accounts/totp.ts';
import { type ApiFixture, bootApi } from '../support/api-fixture.ts';
import { axeViolations, hasChromium, launchBrowser, newPage } from '../support/browser.ts';
import { until } from '../support/http-request.ts';

const PASSWORD = 'a long enough passphrase';
let fx: ApiFixture;
let browser: Browser;
let page: Page;
let recoveryCodes: string[] = [];

async function expectAccessible(p: Page): Promise<void> {
  await expect.poll(() => p.getByRole('heading', { level: 1 }).count()).toBe(1);
  expect(await axeViolations(p)).toEqual([]);
}

describe.skipIf(!hasChromium)('dashboard accounts in Chromium', () => {
  beforeAll(async () => {
    [fx, browser] = await Promise.all([bootApi(), launchBrowser()]);
    ({ page } = await newPage(browser));
  });
  afterAll(async () => {
    await browser?.close();
    await fx?.close();
  });

  it('npm start prints the dashboard URL and an owner invite; the invite sets a password and signs in', async () => {
    await until(() => /Owner invite for the demo organisation/.test(fx.svc.output()), 10_000);
    expect(fx.svc.output()).toContain(`Dashboard: ${fx.svc.dashboard}`);
    const invite = /(http:\/\/\S+\/invite#\S+)/.exec(fx.svc.output())?.[1];
    expect(invite).toBeDefined();
    await page.goto(invite!);
    await page.getByRole('heading', { level: 1, name: 'Join Demo organisation' }).waitFor();
    await expectAccessible(page);
    await page.getByLabel('E-mail').fill('owner@example.com');
    await page.getByLabel('Choose a password').fill('too short');
    await page.getByRole('button', { name: 'Create account' }).click();
    await expect.poll(() => page.getByRole('alert').first().textContent()).toContain('at least 12 characters');
    // Nothing typed is lost.
    expect(await page.getByLabel('E-mail').inputValue()).toBe('owner@example.com');
    await page.getByLabel('Choose a password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { level: 1, name: 'Your account' }).waitFor();
    await expectAccessible(page);
  });

  it('turns on 2FA, signs out, and signs in again with a code, by keyboard', async () => {
    await page.getByLabel('Password to set it up').fill(PASSWORD);
    await page.getByRole('button', { name: 'Set up two-factor authentication' }).click();
    const key = (await page.locator('code').first().textContent()) ?? '';
    expect(key).toMatch(/^[A-Z2-7]{32}$/);
    await expectAccessible(page);
    await page.getByLabel('Code from the app').fill('000000');
    await page.getByRole('button', { name: 'Turn on two-factor authentication' }).click();
    await expect.poll(() => page.getByRole('alert').first().textContent()).toContain('Wrong code');
    await page.getByLabel('Code from the app').fill(totpCode(key, Date.now()));
    await page.getByRole('button', { name: 'Turn on two-factor authentication' }).click();
    await page.getByRole('list', { name: 'Recovery codes' }).waitFor();
    recoveryCodes = await page.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem').allTextContents();
    expect(recoveryCodes).toHaveLength(10);

    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    await expectAccessible(page);
    // Keyboard only: type, Tab, type, Enter.
    await page.getByLabel('E-mail').focus();
    await page.keyboard.type('owner@example.com');
    await page.keyboard.press('Tab');
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Two-factor authentication' }).waitFor();
    await expectAccessible(page);
    await page.keyboard.press('Tab');
    await page.keyboard.type(totpCode(key, Date.now() + 30_000));
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Links' }).waitFor();
    await expectAccessible(page);
  });

  it('a session that ended goes back to sign-in, then to where the user was', async () => {
    await page.getByRole('link', { name: 'Your account' }).click();
    await page.getByRole('heading', { level: 1, name: 'Your account' }).waitFor();
    await fx.db.sql`delete from sessions`;
    await page.getByLabel('Current password').fill(PASSWORD);
    await page.getByLabel('New password').fill('another long passphrase');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    expect(new URL(page.url()).searchParams.get('redirect')).toBe('/account');
    await page.getByLabel('E-mail').fill('owner@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByLabel(/Code from your authenticator app/).fill(recoveryCodes[0]!);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { level: 1, name: 'Your account' }).waitFor();
  });
});
