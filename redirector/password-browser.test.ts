// Invariant: a visitor in Chromium meets a password-protected link as a person would: the form
// (found by its label, axe-clean), a wrong password explained next to the field, the right one
// taking them to the destination with an HttpOnly cookie scoped to that link's path, so the next
// visit goes straight through and another protected link still asks.
import { createServer, type Server } from 'node:http';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { MemoryHitSink } from '../shared/analytics/events/memory-hit-sink.ts';
import { MemoryInvalidationBus } from '../shared/bus/memory-invalidation-bus.ts';
import { saveLink, type Actor, type LinkServiceDeps } from '../shared/links/save-link.ts';
import { createOrganization } from '../shared/orgs/org-repository.ts';
import { axeViolations, hasChromium, launchBrowser, newPage } from '../test/support/browser.ts';
import { createTestDatabase, type TestDatabase } from '../test/support/servers.ts';
import { createRedirectorServer, type RedirectorServer } from './create-redirector.ts';
import { memoryRedirectorPorts } from '../test/support/redirector-ports.ts';

describe.skipIf(!hasChromium)('a password-protected link in Chromium', () => {
  let db: TestDatabase;
  let bus: MemoryInvalidationBus;
  let server: RedirectorServer;
  let landing: Server;
  let landingUrl: string;
  let browser: Browser;
  let deps: LinkServiceDeps;
  let actor: Actor;

  beforeAll(async () => {
    [db, browser] = await Promise.all([createTestDatabase(inject('embeddedPgUrl')), launchBrowser()]);
    landing = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Landing</title><h1>You made it</h1>'));
    await new Promise<void>((resolve) => landing.listen(0, '127.0.0.1', resolve));
    landingUrl = `http://127.0.0.1:${(landing.address() as { port: number }).port}/landing`;
    bus = new MemoryInvalidationBus();
    server = await createRedirectorServer({
      sql: db.sql,
      bus,
      ...memoryRedirectorPorts(db.sql),
      hitSink: new MemoryHitSink(),
      config: {
        REDIRECT_HOST: '127.0.0.1',
        REDIRECT_PORT: 0,
        LINK_CACHE_ENTRIES: 1_000,
        TRUST_PROXY: { kind: 'hops', hops: 0 },
        SHORT_LINK_BASE_URL: 'http://localhost:8080',
      },
    });
    deps = { sql: db.sql, shortLinkBase: 'http://localhost:8080', now: Date.now };
    actor = { org: await createOrganization(db.sql, { name: 'pw-browser', plan: 'PRO' }), attribution: 'api-key:test', via: 'EXTERNAL' };
  });

  afterAll(async () => {
    await server?.close();
    await bus?.close();
    await browser?.close();
    await new Promise((resolve) => landing?.close(resolve));
    await db?.drop();
  });

  it('asks, explains a wrong password, lets the right one through, and scopes its cookie to the link', async () => {
    const base = `http://127.0.0.1:${server.port}`;
    const one = (await saveLink(deps, actor, { url: landingUrl, password: 'correct horse' })).view.shortCode;
    const two = (await saveLink(deps, actor, { url: landingUrl, password: 'correct horse' })).view.shortCode;
    const { context, page } = await newPage(browser);

    await page.goto(`${base}/${one}`);
    await page.getByRole('heading', { level: 1, name: 'Password required' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await page.getByLabel('Password').fill('wrong horse');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('alert').filter({ hasText: 'Wrong password' }).waitFor();
    expect(await page.getByLabel('Password').getAttribute('aria-invalid')).toBe('true');
    expect(await axeViolations(page)).toEqual([]);
    expect(await context.cookies()).toEqual([]);

    await page.getByLabel('Password').fill('correct horse');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'You made it' }).waitFor();
    expect(page.url()).toBe(landingUrl);

    const cookies = await context.cookies();
    expect(cookies).toHaveLength(1);
    expect(cookies[0]).toMatchObject({ name: 'sl_pw', path: `/${one}`, httpOnly: true, sameSite: 'Lax', secure: false });
    const lifetime = (cookies[0]?.expires ?? 0) - Date.now() / 1000;
    expect(lifetime).toBeGreaterThan(24 * 3600 - 60);
    expect(lifetime).toBeLessThanOrEqual(24 * 3600);

    // The next visit goes straight through; the other protected link still asks.
    await page.goto(`${base}/${one}`);
    await page.getByRole('heading', { name: 'You made it' }).waitFor();
    await page.goto(`${base}/${two}`);
    await page.getByRole('heading', { level: 1, name: 'Password required' }).waitFor();
    await context.close();
  });
});
