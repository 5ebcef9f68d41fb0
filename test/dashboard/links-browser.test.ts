// Invariant: the Links page in a real Chromium against a booted `npm start`: a link created in the
// editor (with a deep link) is listed by the API as INTERNAL with the user's e-mail; the list's
// filter is the API's DSL (a bad one is explained next to the field); bulk archive makes the
// redirector answer 410 within a second; the QR code downloads; bad input is explained next to
// its field without losing what was typed; a viewer sees links but the server refuses their
// writes (403); a delete is confirmed in a dialog that names what is lost. Every page passes
// axe-core (serious, critical).
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptInvite, createInvite } from '../../shared/accounts/invites.ts';
import { type ApiFixture, bootApi, type Org } from '../support/api-fixture.ts';
import { axeViolations, hasChromium, launchBrowser, newPage, screenshot, signIn } from '../support/browser.ts';
import { send } from '../support/http-request.ts';

const PASSWORD = 'a long enough passphrase';
let fx: ApiFixture;
let org: Org;
let browser: Browser;
let page: Page;
let appId: string;

async function expectAccessible(p: Page): Promise<void> {
  await expect.poll(() => p.getByRole('heading', { level: 1 }).count()).toBe(1);
  expect(await axeViolations(p)).toEqual([]);
}

async function member(email: string, role: 'owner' | 'viewer'): Promise<void> {
  const { token } = await createInvite(fx.db.sql, { orgId: org.id, email, role, invitedBy: 'test' });
  await acceptInvite(fx.db.sql, token, { password: PASSWORD });
}

describe.skipIf(!hasChromium)('dashboard links in Chromium', () => {
  beforeAll(async () => {
    [fx, browser] = await Promise.all([bootApi(), launchBrowser()]);
    org = await fx.org('PRO');
    appId = (
      await fx.svc.admin<{ mobileAppId: string }>(
        'app',
        'register',
        '--org',
        org.id,
        '--name',
        'Acme <iOS>',
        '--platform',
        'IOS',
        '--store-url',
        'https://apps.apple.com/app/id1',
      )
    ).mobileAppId;
    await member('owner@example.com', 'owner');
    await member('viewer@example.com', 'viewer');
    for (let i = 0; i < 25; i++) await org.client.save({ url: `https://example.com/seed/${i}`, shortCode: `seed-link-${String(i).padStart(2, '0')}` });
    ({ page } = await newPage(browser));
    await signIn(page, fx.svc.dashboard, 'owner@example.com', PASSWORD);
  });
  afterAll(async () => {
    await browser?.close();
    await fx?.close();
  });

  it('lists the organisation’s links with paging and the API’s filter', async () => {
    await expectAccessible(page);
    await expect.poll(() => page.getByRole('table').getByRole('caption').textContent()).toBe('25 links');
    expect(await page.getByRole('row').count()).toBe(21);
    await page.getByRole('button', { name: 'Next page' }).click();
    await expect.poll(() => page.getByRole('row').count()).toBe(6);
    expect(page.url()).toContain('page=1');
    await page.getByLabel('Filter', { exact: true }).fill('shortCode=seed-link-10 OR shortCode=seed-link-11 OR shortCode=nothing-here');
    await page.getByRole('button', { name: 'Apply filter' }).click();
    await expect.poll(() => page.getByRole('table').getByRole('caption').textContent()).toBe('2 links matching the filter');
    await page.getByLabel('Filter', { exact: true }).fill('shortCode ~ nope');
    await page.getByRole('button', { name: 'Apply filter' }).click();
    await expect.poll(() => page.getByRole('alert').count()).toBeGreaterThan(0);
    expect(await page.getByLabel('Filter', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByLabel('Filter', { exact: true }).inputValue()).toBe('shortCode ~ nope');
    await expectAccessible(page);
  });

  it('creates a link with a deep link; the API lists it as INTERNAL with the user’s e-mail', async () => {
    await page.goto(`${fx.svc.dashboard}/links/new`);
    await page.getByRole('heading', { level: 1, name: 'New link' }).waitFor();
    await expectAccessible(page);
    await page.getByLabel('Destination URL').fill('not a url');
    await page.getByLabel('Short code (optional)').fill('dash-link-1');
    await page.getByLabel('UTM source').fill('newsletter');
    await page.getByRole('button', { name: 'Add a deep link' }).click();
    await page.getByLabel('App', { exact: true }).selectOption(appId);
    await page.getByLabel('Deep link URL').fill('acme://product/42');
    await page.getByRole('button', { name: 'Create link' }).click();
    await expect.poll(() => page.getByLabel('Destination URL').getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByLabel('Short code (optional)').inputValue()).toBe('dash-link-1');
    expect(await page.getByLabel('Deep link URL').inputValue()).toBe('acme://product/42');
    await expectAccessible(page);
    await page.getByLabel('Destination URL').fill('https://example.com/launch');
    await page.getByRole('button', { name: 'Create link' }).click();
    await page.getByRole('heading', { level: 1, name: 'Link dash-link-1' }).waitFor();
    await expectAccessible(page);

    const listed = await org.client.list<{ data: Record<string, unknown>[] }>({ query: 'shortCode=dash-link-1' });
    expect(listed.body.response!.data[0]).toMatchObject({
      url: 'https://example.com/launch',
      utmSource: 'newsletter',
      createdVia: 'INTERNAL',
      lastModifiedVia: 'INTERNAL',
      createdBy: 'owner@example.com',
      deepLinks: [expect.objectContaining({ mobileAppId: appId, deeplinkUrl: 'acme://product/42', platform: 'IOS' })],
    });
    expect((await send(Number(new URL(fx.svc.redirect).port), '/dash-link-1', { host: 'sho.rt' })).status).toBe(302);
  });

  it('downloads the QR code', async () => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download QR code (PNG)' }).click()]);
    expect(download.suggestedFilename()).toBe('dash-link-1.png');
    const path = await download.path();
    const { readFileSync } = await import('node:fs');
    expect(readFileSync(path).subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  });

  it('archives by bulk action; the redirector answers 410 within a second; restore brings it back', async () => {
    await page.goto(`${fx.svc.dashboard}/links?q=${encodeURIComponent('"shortCode=dash-link-1 OR shortCode=seed-link-00"')}`);
    await page.getByLabel('Select dash-link-1').check();
    await screenshot(page, 'dashboard-links.png');
    await page.getByRole('button', { name: 'Archive selected' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'archived' }).count()).toBe(1);
    const archivedAt = Date.now();
    const port = Number(new URL(fx.svc.redirect).port);
    let status = 0;
    while (Date.now() - archivedAt < 1_000) {
      status = (await send(port, '/dash-link-1', { host: 'sho.rt' })).status;
      if (status === 410) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(status).toBe(410);
    await expect.poll(() => page.getByRole('row', { name: /dash-link-1/ }).textContent()).toContain('Archived');
    await page.getByLabel('Select dash-link-1').check();
    await page.getByRole('button', { name: 'Restore selected' }).click();
    await expect.poll(async () => (await send(port, '/dash-link-1', { host: 'sho.rt' })).status, { timeout: 2_000 }).toBe(302);
  });

  it('deletes a link after a confirmation that names what is lost; with its clicks when asked: 404 at once, the code never again', async () => {
    const code = 'dash-delete-1';
    expect((await org.client.save({ url: 'https://example.com/doomed', shortCode: code })).status).toBe(200);
    const port = Number(new URL(fx.svc.redirect).port);
    const person = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
    expect((await send(port, `/${code}`, { host: 'sho.rt', headers: { 'user-agent': person } })).status).toBe(302);
    const eventsOf = async (): Promise<number> =>
      ((await org.client.get<{ data: unknown[] }>(`/link/external/v1/analytics/events?since=2000-01-01T00:00:00Z&shortCode=${code}`)).body.response?.data ?? [])
        .length;
    await expect.poll(eventsOf, { timeout: 10_000 }).toBe(1);
    await page.goto(`${fx.svc.dashboard}/links/${code}`);
    await page.getByRole('button', { name: 'Delete link…' }).click();
    const dialog = page.getByRole('dialog', { name: `Delete ${code}?` });
    await dialog.waitFor();
    const said = await dialog.textContent();
    for (const lost of ['stops working at once for everyone', 'QR codes', 'never given out again', 'link.deleted', 'recorded clicks'])
      expect(said).toContain(lost);
    expect(await axeViolations(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect((await send(port, `/${code}`, { host: 'sho.rt', headers: { 'user-agent': person } })).status).toBe(302); // nothing happened
    // The purge takes the events stored before the delete (docs/api.md); this click's is awaited.
    await expect.poll(eventsOf, { timeout: 10_000 }).toBe(2);
    await page.getByRole('button', { name: 'Delete link…' }).click();
    await dialog.getByLabel('Also delete every recorded click and preview of this link').check();
    await dialog.getByRole('button', { name: `Delete ${code}` }).click();
    await page.waitForURL(/\/links$/);
    await expect.poll(async () => (await send(port, `/${code}`, { host: 'sho.rt' })).status, { timeout: 1_000 }).toBe(404);
    await expect.poll(eventsOf, { timeout: 10_000 }).toBe(0);
    const again = await org.client.save({ url: 'https://example.com/reborn', shortCode: code });
    expect(again.status).toBe(400);
    expect(await page.getByRole('row', { name: new RegExp(code) }).count()).toBe(0);
    await expectAccessible(page);
  });

  it('a viewer sees the links, and the server refuses their writes with 403', async () => {
    const viewer = await newPage(browser);
    try {
      await signIn(viewer.page, fx.svc.dashboard, 'viewer@example.com', PASSWORD);
      await expect.poll(() => viewer.page.getByRole('table').getByRole('caption').textContent()).toMatch(/26 links/);
      expect(await viewer.page.getByRole('link', { name: 'New link' }).count()).toBe(0);
      const status = await viewer.page.evaluate(async () => {
        const session = await (await fetch('/api/session')).json();
        const r = await fetch('/api/links', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-csrf-token': session.csrfToken },
          body: JSON.stringify({ url: 'https://example.com/viewer' }),
        });
        return r.status;
      });
      expect(status).toBe(403);
      await expectAccessible(viewer.page);
    } finally {
      await viewer.context.close();
    }
  });
});
