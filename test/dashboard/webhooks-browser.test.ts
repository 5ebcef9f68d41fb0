// Invariant: the Webhooks page in a real Chromium against a booted `npm start` (whose delivery
// worker sends to a receiver the test runs, verifying each signature with the standardwebhooks
// package): an owner adds an endpoint (a bad URL is explained next to the field, what was typed
// kept) and sees its secret once; a test event and a link created by the API arrive signed; the
// delivery log lists the attempts and a replay arrives with the same webhook-id; a rotation's
// messages verify with both secrets; edited to want link.expired, a link whose expiresAt passes
// arrives once as link.expired (npm start's sweep). A viewer sees the page without its controls, and the server
// refuses their writes (403). Every state passes axe-core (serious, critical).
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptInvite, createInvite } from '../../shared/accounts/invites.ts';
import { type ApiFixture, bootApi, type Org } from '../support/api-fixture.ts';
import { axeViolations, hasChromium, launchBrowser, newPage, signIn } from '../support/browser.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';

const PASSWORD = 'a long enough passphrase';
let fx: ApiFixture;
let org: Org;
let browser: Browser;
let page: Page;
let receiver: WebhookReceiver;

async function expectAccessible(p: Page): Promise<void> {
  await expect.poll(() => p.getByRole('heading', { level: 1 }).count()).toBe(1);
  expect(await axeViolations(p)).toEqual([]);
}

async function member(email: string, role: 'owner' | 'viewer'): Promise<void> {
  const { token } = await createInvite(fx.db.sql, { orgId: org.id, email, role, invitedBy: 'test' });
  await acceptInvite(fx.db.sql, token, { password: PASSWORD });
}

describe.skipIf(!hasChromium)('dashboard webhooks in Chromium', () => {
  beforeAll(async () => {
    [fx, browser, receiver] = await Promise.all([bootApi({ WEBHOOK_ALLOW_PRIVATE: 'true' }), launchBrowser(), startWebhookReceiver()]);
    org = await fx.org('PRO');
    await member('owner@example.com', 'owner');
    await member('viewer@example.com', 'viewer');
    ({ page } = await newPage(browser));
    await signIn(page, fx.svc.dashboard, 'owner@example.com', PASSWORD);
  });
  afterAll(async () => {
    await browser?.close();
    await fx?.close();
    await receiver?.close();
  });

  it('adds an endpoint: a bad URL is explained by its field, then the secret is shown once', async () => {
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    await expectAccessible(page);
    await page.getByLabel('Endpoint URL').fill('not a url at all');
    await page.getByLabel('link.created').check();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await expect.poll(() => page.getByLabel('Endpoint URL').getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByRole('alert').first().textContent()).toContain('absolute https URL');
    expect(await page.getByLabel('Endpoint URL').inputValue()).toBe('not a url at all');
    await expectAccessible(page);

    await page.getByLabel('Endpoint URL').fill(receiver.url);
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const dialog = page.getByRole('dialog', { name: 'Your new signing secret' });
    await dialog.waitFor();
    const secret = await dialog.getByLabel('Signing secret').inputValue();
    expect(secret).toMatch(/^whsec_/);
    receiver.secrets.push(secret);
    await expectAccessible(page);
    await dialog.getByRole('button', { name: 'Close' }).click();
    await page.getByRole('heading', { level: 2, name: receiver.url }).waitFor();
    expect(await page.getByText(`Secret ends in ${secret.slice(-4)}`).count()).toBe(1);
  });

  it('a test event and a link created by the API arrive signed; the log lists them; a replay keeps the id', async () => {
    await page.getByRole('button', { name: `Send test event to ${receiver.url}` }).click();
    await expect.poll(() => receiver.received.filter((r) => r.type === 'webhook.test').length, { timeout: 10_000 }).toBe(1);
    const created = await org.client.save({ url: 'https://example.com/hooked' });
    await expect.poll(() => receiver.received.filter((r) => r.type === 'link.created').length, { timeout: 10_000 }).toBe(1);
    const linkEvent = receiver.received.find((r) => r.type === 'link.created');
    expect(linkEvent?.data).toMatchObject({ shortCode: (created.body as { response: { shortCode: string } }).response.shortCode });
    expect(receiver.unverified).toEqual([]);

    await page.getByRole('button', { name: `Show delivery log of ${receiver.url}` }).click();
    const log = page.getByRole('table', { name: /Delivery attempts/ });
    await expect.poll(() => log.getByRole('row').count()).toBe(3);
    await expectAccessible(page);
    const id = linkEvent?.id as string;
    await log.getByRole('button', { name: `Replay ${id}` }).click();
    await expect.poll(() => receiver.received.filter((r) => r.id === id).length, { timeout: 10_000 }).toBe(2);
    const [first, again] = receiver.received.filter((r) => r.id === id);
    expect(again?.body).toBe(first?.body);
    await page.reload();
    await page.getByRole('button', { name: `Show delivery log of ${receiver.url}` }).click();
    await expect
      .poll(() =>
        page
          .getByRole('table', { name: /Delivery attempts/ })
          .getByText('(replay)')
          .count(),
      )
      .toBe(1);
  });

  it('rotates the secret: messages then verify with the new and the previous one', async () => {
    await page.getByRole('button', { name: `Rotate secret of ${receiver.url}` }).click();
    const dialog = page.getByRole('dialog', { name: /Your new signing secret/ });
    await dialog.waitFor();
    receiver.secrets.push(await dialog.getByLabel('Signing secret').inputValue());
    await dialog.getByRole('button', { name: 'Close' }).click();
    const before = receiver.received.length;
    await page.getByRole('button', { name: `Send test event to ${receiver.url}` }).click();
    await expect.poll(() => receiver.received.length, { timeout: 10_000 }).toBe(before + 1);
    expect(receiver.received.at(-1)?.verifiedBy).toEqual([0, 1]);
    expect(receiver.unverified).toEqual([]);
    await expectAccessible(page);
  });

  it('edited to want link.expired: a link whose expiresAt passes arrives once, as the API answered it', async () => {
    await page.getByRole('button', { name: `Edit ${receiver.url}` }).click();
    const dialog = page.getByRole('dialog', { name: `Edit ${receiver.url}` });
    await dialog.getByLabel('link.expired').check();
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Events: link.created, link.expired.').waitFor();
    const saved = await org.client.save({ url: 'https://example.com/soon-gone', expiresAt: new Date(Date.now() + 1500).toISOString() });
    const view = (saved.body as { response: { shortCode: string } }).response;
    await expect.poll(() => receiver.received.filter((r) => r.type === 'link.expired').length, { timeout: 15_000 }).toBe(1);
    expect(receiver.received.find((r) => r.type === 'link.expired')?.data).toEqual(view);
    expect(receiver.unverified).toEqual([]);
  }, 30_000);

  it('a viewer sees the endpoints without controls, and the server refuses their writes', async () => {
    const { context, page: viewer } = await newPage(browser);
    await signIn(viewer, fx.svc.dashboard, 'viewer@example.com', PASSWORD);
    await viewer.goto(`${fx.svc.dashboard}/webhooks`);
    await viewer.getByRole('heading', { level: 2, name: receiver.url }).waitFor();
    expect(await viewer.getByRole('button', { name: 'Add endpoint' }).count()).toBe(0);
    expect(await viewer.getByRole('button', { name: `Send test event to ${receiver.url}` }).count()).toBe(0);
    await expectAccessible(viewer);
    const status = await viewer.evaluate(async (url) => {
      const session = (await (await fetch('/api/session')).json()) as { csrfToken: string };
      const r = await fetch('/api/webhooks', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': session.csrfToken },
        body: JSON.stringify({ url, eventTypes: ['link.created'] }),
      });
      return r.status;
    }, receiver.url);
    expect(status).toBe(403);
    await context.close();
  });
});
