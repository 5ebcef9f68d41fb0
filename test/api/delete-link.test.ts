// Invariant: POST /shortenedUrl/delete over the real API of `npm start`: scope links:write (403
// without it), the Short URL object as it was, and then the code answers 404 EN001 everywhere:
// the redirector (also after it had cached the link), resolve (not_found), the list (empty, as
// the spec has it), a second delete; save refuses the code to every organisation (TAKEN).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkResponseSchema } from '../../shared/links/link-response.ts';
import { bootApi, type ApiFixture, type Org } from '../support/api-fixture.ts';

let fx: ApiFixture;
let org: Org;
let other: Org;

beforeAll(async () => {
  fx = await bootApi();
  [org, other] = await Promise.all([fx.org('BUSINESS'), fx.org('PRO')]);
});
afterAll(async () => fx?.close());

const del = (o: Org, body: unknown) => o.client.post('/link/external/v1/shortenedUrl/delete', body);
const visit = (code: string) => fetch(`${fx.svc.redirect}/${code}`, { redirect: 'manual', headers: { accept: 'application/json' } });

async function until(check: () => Promise<boolean>, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not reached in ${ms} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('deleting a link over the API', () => {
  it('answers the Short URL object as it was; then the code is 404 EN001 on the redirector, not_found on resolve, absent from the list', async () => {
    const saved = await org.client.save({ url: 'https://e.example/gone', shortLinkName: 'printed on a flyer' });
    const view = linkResponseSchema.parse(saved.body.response);
    const first = await visit(view.shortCode);
    expect([first.status, first.headers.get('location')]).toEqual([302, 'https://e.example/gone']);

    const r = await del(org, { shortCode: view.shortCode });
    expect(r.status).toBe(200);
    expect(r.body.response).toEqual(saved.body.response);

    // The redirector had the link cached: the outbox invalidation drops it.
    await until(async () => (await visit(view.shortCode)).status === 404);
    const gone = await visit(view.shortCode);
    expect(gone.status).toBe(404);
    expect((await gone.json()) as unknown).toEqual({
      errors: [{ code: 'EN001', message: `Short URL with shortCode '${view.shortCode}' not found` }],
    });
    expect((await org.client.resolve({ shortCode: view.shortCode })).body.response).toEqual({ kind: 'not_found' });
    const list = await org.client.list({ query: `shortCode=${view.shortCode}` });
    expect(list.status).toBe(200);
    expect(list.body.response).toMatchObject({ data: [], page: { totalElements: 0 } });

    const again = await del(org, { shortCode: view.shortCode });
    expect(again.status).toBe(404);
    expect(again.body.errors).toEqual([{ code: 'EN001', message: `Short URL with shortCode '${view.shortCode}' not found` }]);
  });

  it('never gives the code out again: save refuses it to the owner and to another organisation (VE001 TAKEN)', async () => {
    const shortCode = `keep-${Math.random().toString(36).slice(2, 10)}`;
    expect((await org.client.save({ url: 'https://e.example/qr', shortCode })).status).toBe(200);
    expect((await del(org, { shortCode })).status).toBe(200);
    for (const o of [org, other]) {
      const r = await o.client.save({ url: 'https://elsewhere.example/', shortCode });
      expect(r.status).toBe(400);
      expect(r.body.errors?.[0]).toMatchObject({ code: 'VE001', details: { field: 'shortCode', reason: 'TAKEN' } });
    }
    expect((await visit(shortCode)).status).toBe(404);
  });

  it("another organisation's link is 404 EN001 and keeps working", async () => {
    const saved = await other.client.save({ url: 'https://e.example/theirs' });
    const { shortCode } = linkResponseSchema.parse(saved.body.response);
    const r = await del(org, { shortCode });
    expect(r.status).toBe(404);
    expect(r.body.errors?.[0]?.code).toBe('EN001');
    expect((await visit(shortCode)).status).toBe(302);
  });

  it('needs links:write (403 SML010 with links:read only) and a body naming shortCode (SML002)', async () => {
    const reader = await fx.org('PRO', { label: 'reader', scopes: 'links:read' });
    const saved = await reader.client.save({ url: 'https://e.example/r' });
    expect(saved.status).toBe(403);
    const denied = await del(reader, { shortCode: 'abcdefg' });
    expect(denied.status).toBe(403);
    expect(denied.body.errors?.[0]).toMatchObject({ code: 'SML010', message: 'Access denied' });
    const missing = await del(org, {});
    expect(missing.status).toBe(400);
    expect(missing.body.errors?.[0]).toMatchObject({ code: 'SML002', message: 'shortCode: must not be empty' });
  });
});
