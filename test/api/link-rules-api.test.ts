// Invariant: the link-rule members and resolve over the real API of `npm start` (one process:
// the API's resolve and the redirector share the click counters): VE001 naming a rule's path,
// members answered when set, resolve under links:read (403 without it), its answer equal to what
// the redirector does, recording nothing (maxClicks and the usage are unchanged), another
// organisation's code not_found.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkResponseSchema } from '../../shared/links/link-response.ts';
import { resolveResponseSchema } from '../../shared/redirects/resolve-link.ts';
import { bootApi, type ApiFixture, type Org } from '../support/api-fixture.ts';

let fx: ApiFixture;
let org: Org;
let other: Org;

beforeAll(async () => {
  fx = await bootApi();
  [org, other] = await Promise.all([fx.org('BUSINESS'), fx.org('PRO')]);
});
afterAll(async () => fx?.close());

const DESKTOP = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';

describe('link rules over the API', () => {
  it('saves the members, names an invalid rule path with VE001, and resolve agrees with the redirector without recording', async () => {
    const bad = await org.client.save({
      url: 'https://e.example/',
      rules: [
        { conditions: [{ type: 'device', value: 'IOS' }], url: 'https://ios.example/' },
        { conditions: [{ type: 'device', value: 'IOS' }], url: 'https://ios.example/' },
        { conditions: [{ type: 'weather', value: 'rain' }], url: 'https://x.example/' },
      ],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors?.[0]).toMatchObject({ code: 'VE001', details: { field: 'rules[2].conditions[0].type' } });
    expect(bad.body.errors?.[0]?.message.startsWith('Invalid value')).toBe(true);

    const saved = await org.client.save<Record<string, unknown>>({
      url: 'https://e.example/',
      maxClicks: 2,
      rules: [{ conditions: [{ type: 'device', value: 'IOS' }], url: 'https://ios.example/' }],
    });
    expect(saved.status).toBe(200);
    const view = linkResponseSchema.parse(saved.body.response);
    expect(view.maxClicks).toBe(2);

    for (let i = 0; i < 3; i++) {
      const r = await org.client.resolve({ shortCode: view.shortCode, visitor: { userAgent: IPHONE } });
      expect(r.status).toBe(200);
      expect(resolveResponseSchema.parse(r.body.response)).toEqual({ kind: 'rule', location: 'https://ios.example/', matchedRule: 0 });
    }
    expect((await org.client.resolve({ shortCode: view.shortCode })).body.response).toEqual({ kind: 'redirect', location: 'https://e.example/' });

    const visit = (ua: string) => fetch(`${fx.svc.redirect}/${view.shortCode}`, { redirect: 'manual', headers: { 'user-agent': ua } });
    const first = await visit(IPHONE);
    expect([first.status, first.headers.get('location')]).toEqual([302, 'https://ios.example/']);
    // curl is a bot: served and recorded, but it takes none of the link's clicks.
    expect((await visit('curl/8')).status).toBe(302);
    expect((await visit(DESKTOP)).status).toBe(302);
    expect((await visit(IPHONE)).status).toBe(410);
    expect((await org.client.resolve({ shortCode: view.shortCode, visitor: { userAgent: IPHONE } })).body.response).toEqual({ kind: 'expired' });
  });

  it('needs links:read; another organisation’s code is not_found; bad visitor facts are VE001 or SML002', async () => {
    const { body } = await org.client.save<{ shortCode: string }>({ url: 'https://e.example/mine' });
    const code = body.response?.shortCode ?? '';
    expect((await other.client.resolve({ shortCode: code })).body.response).toEqual({ kind: 'not_found' });
    const writer = await fx.org('PRO', { label: 'writer', scopes: 'links:write' });
    expect((await writer.client.resolve({ shortCode: code })).status).toBe(403);
    const at = await org.client.resolve({ shortCode: code, visitor: { at: 'yesterday' } });
    expect(at.status).toBe(400);
    expect(at.body.errors?.[0]?.message).toContain('visitor.at');
    expect((await org.client.resolve({ shortCode: code, visitor: { userAgent: 7 } })).body.errors?.[0]?.code).toBe('VE001');
    expect((await org.client.resolve({})).body.errors?.[0]).toMatchObject({ code: 'SML002', message: 'shortCode: must not be empty' });
    expect((await org.client.resolve([])).status).toBe(400);
  });
});
