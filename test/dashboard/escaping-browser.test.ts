// Invariant: what users type is text everywhere: organisation, app and link names and URLs that
// carry markup and script are shown as typed on every page and never run (no dialog opens, no
// inline script or event-handler attribute appears in the DOM), JSON answers are JSON with
// nosniff, and no dashboard answer carries a password hash or an API key, except the one answer
// that creates a key.
import type { Browser, Page, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptInvite, createInvite } from '../../shared/accounts/invites.ts';
import { type ApiFixture, bootApi } from '../support/api-fixture.ts';
import { axeViolations, hasChromium, launchBrowser, newPage, signIn } from '../support/browser.ts';

const PASSWORD = 'a long enough passphrase';
const EVIL = `<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">`;
let fx: ApiFixture;
let browser: Browser;
let page: Page;
let orgId: string;
const answers: { url: string; type: string; nosniff: string | null; body: string }[] = [];
let dialogs = 0;

describe.skipIf(!hasChromium)('user input is escaped on every page', () => {
  beforeAll(async () => {
    [fx, browser] = await Promise.all([bootApi(), launchBrowser()]);
    orgId = (await fx.svc.admin<{ id: string }>('org', 'create', '--name', `Org ${EVIL}`, '--plan', 'BUSINESS')).id;
    await fx.svc.admin(
      'app',
      'register',
      '--org',
      orgId,
      '--name',
      `App ${EVIL}`,
      '--platform',
      'IOS',
      '--store-url',
      'https://apps.apple.com/app/id1?x=<script>1</script>',
    );
    const { token } = await createInvite(fx.db.sql, { orgId, email: 'owner@evil.test', role: 'owner', invitedBy: `admin ${EVIL}` });
    await acceptInvite(fx.db.sql, token, { password: PASSWORD });
    await createInvite(fx.db.sql, { orgId, email: 'pending@evil.test', role: 'viewer', invitedBy: `admin ${EVIL}` });
    ({ page } = await newPage(browser));
    page.on('dialog', (d) => {
      dialogs++;
      void d.dismiss();
    });
    page.on('response', (r: Response) => {
      if (!r.url().includes('/api/')) return;
      void r.text().then(
        (body) => answers.push({ url: r.url(), type: r.headers()['content-type'] ?? '', nosniff: r.headers()['x-content-type-options'] ?? null, body }),
        () => undefined,
      );
    });
    await signIn(page, fx.svc.dashboard, 'owner@evil.test', PASSWORD);
  });
  afterAll(async () => {
    await browser?.close();
    await fx?.close();
  });

  async function expectInert(p: Page): Promise<void> {
    const state = await p.evaluate(() => ({
      pwned: (window as unknown as { __pwned?: number }).__pwned ?? 0,
      inline: document.querySelectorAll('script:not([src])').length,
      handlers: [...document.querySelectorAll('*')].filter((e) => [...e.attributes].some((a) => a.name.startsWith('on'))).length,
      imgs: document.querySelectorAll('img[src="x"]').length,
    }));
    expect(state).toEqual({ pwned: 0, inline: 0, handlers: 0, imgs: 0 });
  }

  it('a link whose name and URL carry markup is shown as text on the list and in the editor', async () => {
    await page.goto(`${fx.svc.dashboard}/links/new`);
    await page.getByLabel('Destination URL').fill('https://example.com/?q=<script>alert(1)</script>');
    await page.getByLabel('Short code (optional)').fill('evil-link-1');
    await page.getByLabel('Name').fill(`Name ${EVIL}`);
    await page.getByLabel('UTM campaign').fill('"><script>alert(2)</script>');
    await page.getByRole('button', { name: 'Create link' }).click();
    await page.getByRole('heading', { level: 1, name: 'Link evil-link-1' }).waitFor();
    await expectInert(page);
    expect(await page.getByLabel('Name').inputValue()).toBe(`Name ${EVIL}`);
    await page.goto(`${fx.svc.dashboard}/links`);
    await expect.poll(() => page.getByRole('row', { name: /evil-link-1/ }).textContent()).toContain(`Name ${EVIL}`);
    await expectInert(page);
  });

  it('every page shows names as typed and runs nothing', async () => {
    for (const name of ['Links', 'API keys', 'Mobile apps', 'Domains', 'Members', 'Usage', 'Settings', 'Your account']) {
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name }).click();
      await page.getByRole('heading', { level: 1 }).first().waitFor();
      await expectInert(page);
      expect(await axeViolations(page), name).toEqual([]);
    }
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Mobile apps' }).click();
    await expect.poll(() => page.getByRole('cell', { name: `App ${EVIL}`, exact: true }).count()).toBe(1);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Members' }).click();
    await expect.poll(() => page.getByRole('cell', { name: `admin ${EVIL}`, exact: true }).count()).toBe(1);
    expect(await page.getByRole('banner').textContent()).toContain(`Org ${EVIL}`);
    expect(dialogs).toBe(0);
  });

  it('JSON answers are JSON with nosniff, and none carries a password hash or an API key but the one that creates it', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API keys' }).click();
    await page.getByLabel('Label').fill('Escaping key');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = await page.getByRole('dialog', { name: 'Your new API key' }).getByLabel('API key').inputValue();
    await page.getByRole('button', { name: 'Done' }).click();
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
    await expect.poll(() => answers.filter((a) => a.url.endsWith('/api/keys')).length).toBeGreaterThan(1);
    expect(answers.length).toBeGreaterThan(15);
    for (const a of answers) {
      expect(a.type, a.url).toMatch(/^application\/json/);
      expect(a.nosniff, a.url).toBe('nosniff');
      expect(a.body, a.url).not.toMatch(/\$argon2/);
    }
    const carrying = answers.filter((a) => a.body.includes(key));
    expect(carrying.map((a) => new URL(a.url).pathname)).toEqual(['/api/keys']);
    expect(JSON.parse(carrying[0]!.body)).toMatchObject({ key, view: { label: 'Escaping key' } });
  });
});
