// The admin CLI: one JSON object with --json, errors on stderr with a non-zero exit, and an
// invalidation published on the bus for every change the redirector caches.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Invalidation } from '../shared/bus/invalidation-bus.ts';
import { PostgresInvalidationBus } from '../shared/bus/postgres-invalidation-bus.ts';
import { bootApi, type ApiFixture } from './support/api-fixture.ts';

let fx: ApiFixture;
let bus: PostgresInvalidationBus;
const received: Invalidation[] = [];

beforeAll(async () => {
  fx = await bootApi();
  bus = new PostgresInvalidationBus(fx.db.sql);
  await bus.subscribe((m) => received.push(m));
});
afterAll(async () => {
  await bus?.close();
  await fx?.close();
});

async function expectPublished(match: Partial<Invalidation>): Promise<void> {
  const deadline = Date.now() + 2000;
  while (Date.now() < deadline) {
    if (received.some((m) => Object.entries(match).every(([k, v]) => (m as Record<string, unknown>)[k] === v))) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`not published: ${JSON.stringify(match)}; got ${JSON.stringify(received)}`);
}

describe('admin CLI', () => {
  it('runs every dashboard operation, prints one JSON object each, and publishes invalidations', async () => {
    const org = await fx.svc.admin<{ id: string; plan: string; timezone: string }>('org', 'create', '--name', 'CLI', '--timezone', 'America/New_York');
    expect(org).toMatchObject({ plan: 'FREE', timezone: 'America/New_York' });

    expect(await fx.svc.admin('org', 'set-plan', '--org', org.id, '--plan', 'pro')).toMatchObject({ plan: 'PRO' });
    await expectPublished({ kind: 'org', orgId: org.id } as Partial<Invalidation>);
    const limited = await fx.svc.admin<{ limits: { clicksPerMonth: number; linksPerMonth: number } }>(
      'org',
      'set-limits',
      '--org',
      org.id,
      '--clicks-per-month',
      '5',
    );
    expect(limited.limits).toMatchObject({ clicksPerMonth: 5, linksPerMonth: 10_000 });

    const key = await fx.svc.admin<{ key: string; label: string; scopes: string[] }>(
      'key',
      'create',
      '--org',
      org.id,
      '--label',
      'Build (ci)',
      '--scopes',
      'links:read',
    );
    expect(key.scopes).toEqual(['links:read']);
    expect(key.key).toMatch(/^slk_/);
    const keys = await fx.svc.admin<{ keys: { label: string; revokedAt: string | null }[] }>('key', 'list', '--org', org.id);
    expect(keys.keys).toEqual([expect.objectContaining({ label: 'Build (ci)', revokedAt: null })]);
    expect(JSON.stringify(keys)).not.toContain(key.key);

    const app = await fx.svc.admin<{ mobileAppId: string; appId: number }>(
      'app',
      'register',
      '--org',
      org.id,
      '--name',
      'Droid',
      '--platform',
      'ANDROID',
      '--store-url',
      'https://play.google.com/store/apps/details?id=x',
    );
    expect(app.mobileAppId).toMatch(/^[A-Za-z0-9+/]{12}$/);
    await fx.svc.admin('app', 'update', '--org', org.id, '--app', app.mobileAppId, '--store-url', 'https://play.google.com/store/apps/details?id=y');
    await expectPublished({ kind: 'app', mobileAppId: app.mobileAppId } as Partial<Invalidation>);
    expect(await fx.svc.admin('app', 'remove', '--org', org.id, '--app', app.mobileAppId)).toMatchObject({ active: false });

    expect(await fx.svc.admin('domain', 'add', '--org', org.id, '--host', 'cli.example.com', '--primary')).toMatchObject({
      host: 'cli.example.com',
      isPrimary: true,
    });
    await expectPublished({ kind: 'domain', host: 'cli.example.com' } as Partial<Invalidation>);
    const link = await fx.svc.admin<{ shortCode: string; smartLink: string; createdVia: string }>(
      'link',
      'create',
      '--org',
      org.id,
      '--url',
      'https://example.com',
      '--by',
      'me@example.com',
    );
    expect(link).toMatchObject({ createdVia: 'INTERNAL', smartLink: `https://cli.example.com/${link.shortCode}` });
    await expectPublished({ kind: 'link', shortCode: link.shortCode } as Partial<Invalidation>);
    await fx.svc.admin('domain', 'remove', '--org', org.id, '--host', 'cli.example.com');

    const usage = await fx.svc.admin<{ links: { used: number }; clicks: { limit: number } }>('usage', '--org', org.id);
    expect(usage.links.used).toBe(1);
    expect(usage.clicks.limit).toBe(5);
  }, 120_000); // about 15 admin processes, each a Node start; slow when the suite loads both cores

  it('fails with a message on stderr and a non-zero exit, printing nothing on stdout', async () => {
    for (const args of [
      ['org', 'create'],
      ['org', 'set-plan', '--org', '00000000-0000-0000-0000-000000000000', '--plan', 'PRO'],
      ['org', 'create', '--name', 'x', '--plan', 'GOLD'],
      ['key', 'create', '--org', 'nope', '--label', 'x1x'],
      ['app', 'register', '--org', 'nope', '--name', 'x', '--platform', 'IOS', '--store-url', 'javascript:x'],
      ['frobnicate'],
    ]) {
      const r = await fx.svc.adminRaw(...args, '--json');
      expect(r.code, args.join(' ')).not.toBe(0);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().length).toBeGreaterThan(0);
    }
  });

  it('a FREE organisation cannot add a custom domain (hard cap CUSTOM_DOMAINS → QE001)', async () => {
    const org = await fx.svc.admin<{ id: string }>('org', 'create', '--name', 'Free');
    const r = await fx.svc.adminRaw('domain', 'add', '--org', org.id, '--host', 'free.example.com');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('QE001');
  });
});
