// Invariant: in a real Chromium against the dashboard's server (address policy on: no private
// webhook URLs), an owner edits an endpoint in a dialog reached by keyboard (a private or http URL
// is explained next to the field, what was typed kept; saved, the card shows the new URL and
// event types and focus returns to the Edit button), replays a time range of the endpoint's
// messages (an empty range names its field; a range queues exactly its messages again) and
// enables an endpoint a 410 disabled. A viewer sees neither control and the server refuses the
// edit (403). Every state passes axe-core (serious, critical).
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, hasChromium, launchBrowser, newPage, signIn } from '../support/browser.ts';
import { type DashboardApp, startDashboardApp } from '../support/dashboard-app.ts';
import { tabTo } from '../support/keyboard.ts';

const PASSWORD = 'a long enough passphrase';
// IP literals: the address policy needs no DNS for them; nothing is delivered (no worker runs).
const FIRST = 'https://93.184.215.14/hooks';
const SECOND = 'https://93.184.215.14/moved';
let d: DashboardApp;
let orgId: string;
let browser: Browser;
let page: Page;
let endpointId: string;

async function expectAccessible(p: Page): Promise<void> {
  expect(await axeViolations(p)).toEqual([]);
}

const focusedText = (p: Page) => p.evaluate(() => (document.activeElement?.textContent ?? '').trim());

describe.skipIf(!hasChromium)('editing, replaying and enabling webhooks in Chromium', () => {
  beforeAll(async () => {
    [d, browser] = await Promise.all([startDashboardApp({ allowPrivateWebhooks: false }), launchBrowser()]);
    orgId = await d.org('PRO');
    for (const role of ['owner', 'viewer'] as const) await d.client().accept(await d.invite(orgId, `${role}@example.com`, role), PASSWORD);
    const owner = d.client();
    await owner.signIn('owner@example.com', PASSWORD);
    const added = await owner.post<{ endpoint: { id: string } }>('/api/webhooks', { url: FIRST, eventTypes: ['link.created'] });
    endpointId = added.body.endpoint.id;
    ({ page } = await newPage(browser));
    await signIn(page, d.base, 'owner@example.com', PASSWORD);
    await page.goto(`${d.base}/webhooks`);
    await page.getByRole('heading', { level: 2, name: FIRST }).waitFor();
  });
  afterAll(async () => {
    await browser?.close();
    await d?.close();
  });

  it('edits the URL and event types by keyboard: a refused URL is explained by its field, kept as typed', async () => {
    await tabTo(page, `Edit ${FIRST}`, 80);
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: `Edit ${FIRST}` });
    await dialog.waitFor();
    const url = dialog.getByLabel('Endpoint URL');
    expect(await url.inputValue()).toBe(FIRST);
    expect(await dialog.getByLabel('link.created').isChecked()).toBe(true);
    await expectAccessible(page);

    for (const [typed, says] of [
      ['https://10.0.0.7/hooks', 'resolves to a private address (10.0.0.7)'],
      ['http://93.184.215.14/hooks', 'must use https'],
    ] as const) {
      await url.fill(typed);
      await dialog.getByRole('button', { name: 'Save changes' }).click();
      await expect.poll(() => url.getAttribute('aria-invalid')).toBe('true');
      const describedBy = (await url.getAttribute('aria-describedby')) ?? '';
      const errorId = describedBy.split(' ').find((id) => id.endsWith('-error')) as string;
      expect(await page.locator(`[id="${errorId}"]`).textContent()).toContain(says);
      expect(await url.inputValue()).toBe(typed);
      expect(await dialog.isVisible()).toBe(true);
    }
    await expectAccessible(page);

    await url.fill(SECOND);
    await dialog.getByLabel('link.created').uncheck();
    await dialog.getByLabel('link.expired').check();
    await dialog.getByLabel('link.updated').check();
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('heading', { level: 2, name: SECOND }).waitFor();
    expect(await dialog.isVisible()).toBe(false);
    const card = page.getByRole('region', { name: SECOND });
    expect(await card.getByText('Events: link.expired, link.updated.').count()).toBe(1);
    expect(await card.getByRole('status').textContent()).toBe('Endpoint saved.');
    expect(await focusedText(page)).toBe(`Edit ${SECOND}`);
    await expectAccessible(page);
    const [row] = await d.db.sql<{ url: string; event_types: string[] }[]>`select url, event_types from webhook_endpoints where id = ${endpointId}`;
    expect(row).toEqual({ url: SECOND, event_types: ['link.expired', 'link.updated'] });

    // Escape leaves the dialog without saving.
    await page.getByRole('button', { name: `Edit ${SECOND}` }).click();
    await page
      .getByRole('dialog', { name: `Edit ${SECOND}` })
      .getByLabel('Endpoint URL')
      .fill('https://93.184.215.14/never');
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
    expect((await d.db.sql<{ url: string }[]>`select url from webhook_endpoints where id = ${endpointId}`)[0]?.url).toBe(SECOND);
  });

  it('replays the messages of a time range; an empty range names its field', async () => {
    const ids: string[] = [];
    const card = page.getByRole('region', { name: SECOND });
    for (let i = 0; i < 3; i++) {
      await card.getByRole('button', { name: `Send test event to ${SECOND}` }).click();
      await expect.poll(async () => (await card.getByRole('status').textContent()) ?? '').toMatch(/^Test event msg_\w+ queued\.$/);
      ids.push(/msg_\w+/.exec((await card.getByRole('status').textContent()) ?? '')?.[0] as string);
      await card.getByRole('status').evaluate((el) => {
        el.textContent = '';
      });
    }
    // Delivered on 20 November at 10:30, 11:30 and 12:30 local time.
    for (const [i, id] of ids.entries()) {
      const at = new Date(2026, 10, 20, 10 + i, 30).toISOString();
      await d.db.sql`update webhook_messages set status = 'DELIVERED', created_at = ${at} where id = ${id}`;
    }
    await tabTo(page, `Replay messages of ${SECOND}`, 80);
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: `Replay messages of ${SECOND}` });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Replay messages' }).click();
    await expect.poll(() => dialog.getByLabel('From').getAttribute('aria-invalid')).toBe('true');
    await expectAccessible(page);
    await dialog.getByLabel('From').fill('2026-11-20T10:00:00');
    await dialog.getByLabel('To').fill('2026-11-20T12:00:00');
    await dialog.getByRole('button', { name: 'Replay messages' }).click();
    await expect.poll(() => card.getByRole('status').textContent()).toBe('2 message(s) queued again.');
    const rows = await d.db.sql<
      { id: string; status: string }[]
    >`select id, status from webhook_messages where endpoint_id = ${endpointId} order by created_at`;
    expect(rows.map((r) => [r.id, r.status])).toEqual([
      [ids[0], 'PENDING'],
      [ids[1], 'PENDING'],
      [ids[2], 'DELIVERED'],
    ]);
    expect(await focusedText(page)).toBe(`Replay messages of ${SECOND}`);
    await expectAccessible(page);
  });

  it('enables an endpoint a 410 disabled', async () => {
    await d.db.sql`update webhook_endpoints set enabled = false, disabled_reason = 'GONE' where id = ${endpointId}`;
    await page.reload();
    const card = page.getByRole('region', { name: SECOND });
    await card.getByText('Disabled (the endpoint answered 410 Gone)').waitFor();
    await card.getByRole('button', { name: `Enable ${SECOND}` }).click();
    await card.getByText('Status: Enabled.').waitFor();
    expect(await card.getByRole('status').textContent()).toBe('Enabled.');
    expect((await d.db.sql<{ enabled: boolean }[]>`select enabled from webhook_endpoints where id = ${endpointId}`)[0]?.enabled).toBe(true);
    await expectAccessible(page);
  });

  it('a viewer has no edit or replay controls, and the server refuses the edit', async () => {
    const { context, page: viewer } = await newPage(browser);
    await signIn(viewer, d.base, 'viewer@example.com', PASSWORD);
    await viewer.goto(`${d.base}/webhooks`);
    await viewer.getByRole('heading', { level: 2, name: SECOND }).waitFor();
    expect(await viewer.getByRole('button', { name: `Edit ${SECOND}` }).count()).toBe(0);
    expect(await viewer.getByRole('button', { name: `Replay messages of ${SECOND}` }).count()).toBe(0);
    await expectAccessible(viewer);
    const statuses = await viewer.evaluate(async (id) => {
      const session = (await (await fetch('/api/session')).json()) as { csrfToken: string };
      const post = (path: string, body: unknown) =>
        fetch(path, { method: 'POST', headers: { 'content-type': 'application/json', 'x-csrf-token': session.csrfToken }, body: JSON.stringify(body) }).then(
          (r) => r.status,
        );
      return [
        await post(`/api/webhooks/${id}`, { url: 'https://93.184.215.14/viewer', eventTypes: ['link.created'] }),
        await post(`/api/webhooks/${id}/replay`, { from: '2026-11-20T00:00:00Z', to: '2026-11-21T00:00:00Z' }),
      ];
    }, endpointId);
    expect(statuses).toEqual([403, 403]);
    await context.close();
  });
});
