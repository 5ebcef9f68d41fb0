// Invariant: hostile input through the booted service (real Postgres) gets a clear 400 envelope or
// a closed connection, never a 500: NUL anywhere in a body or query, raw control characters in
// URLs, deep links to local-action schemes; a bad key is refused before the body is read; a
// client that does not finish its headers is answered 408 VE001 and cut off after about 10 s.
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HEADERS_TIMEOUT_MS, IDLE_SOCKET_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS, REQUEST_TIMEOUT_MS } from '../../api/build-api.ts';
import { LINGER_MS } from '../../shared/net/lingering-close.ts';
import { NEGATIVE_KEY_ENTRIES, NEGATIVE_KEY_TTL_MS } from '../../shared/keys/key-authenticator.ts';
import { bootApi, type ApiFixture, type Org } from '../support/api-fixture.ts';

let fx: ApiFixture;
let biz: Org;
let iosApp: string;

beforeAll(async () => {
  fx = await bootApi();
  biz = await fx.org('BUSINESS');
  iosApp = (
    await fx.svc.admin<{ mobileAppId: string }>(
      'app',
      'register',
      '--org',
      biz.id,
      '--name',
      'iOS',
      '--platform',
      'IOS',
      '--store-url',
      'https://apps.apple.com/app/1',
    )
  ).mobileAppId;
});
afterAll(async () => fx?.close());

const apiPort = (): number => Number(new URL(fx.svc.api).port);
type ErrorBody = { errors?: { code: string; message: string }[] };

function expectSml002(r: { status: number; body: unknown }, messagePart: string): void {
  expect(r.status).toBe(400);
  const errors = (r.body as ErrorBody).errors ?? [];
  expect(errors[0]?.code).toBe('SML002');
  expect(errors.map((e) => e.message).join(' | ')).toContain(messagePart);
}

describe('NUL (U+0000) in a body or query string is 400 SML002, never a 500', () => {
  it.each([
    ['a text value', { url: 'https://e.com/a', shortLinkName: 'a\u0000b' }, 'shortLinkName: must not contain the NUL character'],
    ['the url', { url: 'https://e.com/a\u0000' }, 'url: must not contain the NUL character'],
    [
      'a nested value',
      { url: 'https://e.com/a', deepLinks: [{ mobileAppId: 'x', deeplinkUrl: 'app://\u0000' }] },
      'deepLinks[0].deeplinkUrl: must not contain the NUL character',
    ],
    ['a member name', { url: 'https://e.com/a', 'odd\u0000name': 1 }, 'member name odd\\u0000name: must not contain the NUL character'],
    ['a UTM tag', { url: 'https://e.com/a', utmSource: '\u0000' }, 'utmSource: must not contain the NUL character'],
  ])('save: NUL in %s', async (_name, body, message) => {
    expectSml002(await biz.client.save(body), message);
  });

  it('bulkSave: NUL in a record value or a record member name refuses the whole batch', async () => {
    expectSml002(
      await biz.client.bulk({ data: [{ url: 'https://e.com/ok' }, { url: 'https://e.com/b', customMetadataTitle: 'x\u0000' }] }),
      'data[1].customMetadataTitle: must not contain',
    );
    expectSml002(await biz.client.bulk({ data: [{ url: 'https://e.com/ok', '\u0000': true }] }), 'member name data[0].\\u0000');
    const listed = await biz.client.list({ query: 'url=https://e.com/ok' });
    expect((listed.body as { response: { data: unknown[] } }).response.data).toEqual([]);
  });

  it.each([
    ['/link/external/v1/shortenedUrl?query=url%3D%00', 'query parameter query'],
    ['/link/external/v1/shortenedUrl?query=shortLinkName%3D%22a%00%22', 'query parameter query'],
    ['/link/external/v1/analytics/events?from=2026-01-01&to=2026-01-02&shortCode=%00', 'query parameter shortCode'],
    ['/link/external/v1/analytics/events/export?from=2026-01-01&to=2026-01-02&shortCode=a%00', 'query parameter shortCode'],
    ['/link/external/v1/shortenedUrl?x%00y=1', 'query parameter name x\\u0000y'],
  ])('GET %s', async (path, message) => {
    expectSml002(await biz.client.get(path), `${message}: must not contain the NUL character`);
  });
});

describe('raw control characters in URLs are 400 SML002; percent-encoded ones are URL data', () => {
  it.each([
    ['url', { url: 'https://e.com/a\u0001b' }],
    ['url', { url: 'https://e.com/a\u007f' }],
    ['url', { url: 'https://e.com/\u001b[31m' }],
    ['customMetadataImageUrl', { url: 'https://e.com/a', customMetadataImageUrl: 'https://e.com/i\u0008.png' }],
    ['deepLinks[0].fallbackUrl', { url: 'https://e.com/a', deepLinks: [{ mobileAppId: 'x', fallbackUrl: 'https://e.com/\u001f' }] }],
    ['deepLinks[0].deeplinkUrl', { url: 'https://e.com/a', deepLinks: [{ mobileAppId: 'x', deeplinkUrl: 'app://open\u0007' }] }],
  ])('%s with a raw control character', async (field, body) => {
    expectSml002(await biz.client.save(body), `${field}: must not contain control characters`);
  });

  it('keeps %00 and %0A (encoded) as they are', async () => {
    const r = await biz.client.save<{ url: string }>({ url: 'https://e.com/a%0Ab?x=%00' });
    expect(r.status).toBe(200);
    expect(r.body.response?.url).toBe('https://e.com/a%0Ab?x=%00');
  });
});

describe('deep links never open local-action schemes (400 SML002 at save)', () => {
  it.each([
    'file:///C:/Windows/System32/calc.exe',
    'search-ms:query=invoice&crumb=location:\\\\attacker\\share',
    'search:query=x',
    'ms-msdt:/id PCWDiagnostic /skip force',
    'ms-settings:privacy',
    'MS-OfficeCmd:{"id":3}',
    'javascript:alert(1)',
    'data:text/html,x',
    'vbscript:msgbox(1)',
    'jar:https://e.com/a.jar!/x',
    'smb://attacker/share',
    'intent://open#Intent;scheme=file;end',
  ])('%s', async (deeplinkUrl) => {
    expectSml002(
      await biz.client.save({ url: 'https://e.com/a', deepLinks: [{ mobileAppId: iosApp, deeplinkUrl }] }),
      'deepLinks[0].deeplinkUrl: must be an absolute URI whose scheme neither runs code nor opens local resources',
    );
  });

  it('custom app schemes, https and Android intents to them still save', async () => {
    for (const deeplinkUrl of ['myapp://open/1', 'https://e.com/universal', 'intent://open#Intent;scheme=myapp;package=com.ex;end']) {
      const r = await biz.client.save({ url: 'https://e.com/a', deepLinks: [{ mobileAppId: iosApp, deeplinkUrl }] });
      expect(r.status).toBe(200);
    }
  });
});

/** Opens a raw connection; resolves what the server wrote and when the connection closed. */
function rawExchange(write: (socket: Socket) => void, maxMs: number): Promise<{ text: string; closedAfterMs: number | null; firstDataMs: number | null }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    let text = '';
    let firstDataMs: number | null = null;
    const socket = connect(apiPort(), '127.0.0.1', () => write(socket));
    const limit = setTimeout(() => {
      socket.destroy();
      resolve({ text, closedAfterMs: null, firstDataMs });
    }, maxMs);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      firstDataMs ??= Date.now() - started;
      text += chunk;
    });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'ECONNRESET' && err.code !== 'EPIPE') reject(err);
    });
    socket.on('close', () => {
      clearTimeout(limit);
      resolve({ text, closedAfterMs: Date.now() - started, firstDataMs });
    });
  });
}

describe('the key is checked before the body is read', () => {
  it('a bad key with 10 MB announced and no body sent gets 401 SML003 at once', async () => {
    const r = await rawExchange((s) => {
      s.write(
        'POST /link/external/v1/shortenedUrl/save HTTP/1.1\r\nHost: api\r\nX-API-KEY: slk_wrong\r\nContent-Type: application/json\r\nContent-Length: 10485760\r\n\r\n',
      );
    }, 5_000);
    expect(r.firstDataMs).not.toBeNull();
    expect(r.firstDataMs!).toBeLessThan(2_000);
    // Answered and closed: the server does not wait for the announced body; it lingers at most
    // LINGER_MS for what the client still sends, and this client sends nothing more.
    expect(r.closedAfterMs).not.toBeNull();
    expect(r.closedAfterMs! - r.firstDataMs!).toBeLessThan(LINGER_MS + 1_000);
    expect(r.text.toLowerCase()).toContain('connection: close');
    expect(r.text).toMatch(/^HTTP\/1\.1 401 /);
    expect(r.text).toContain('{"errors":[{"code":"SML003","message":"Invalid API key"}]}');
  });

  it('a bad key with a malformed or oversized JSON body is 401, not 400', async () => {
    const malformed = await fetch(`${fx.svc.api}/link/external/v1/shortenedUrl/save`, {
      method: 'POST',
      headers: { 'x-api-key': 'slk_wrong', 'content-type': 'application/json' },
      body: '{"url":',
    });
    expect(malformed.status).toBe(401);
    const big = await rawExchange((s) => {
      s.write('POST /link/external/v1/shortenedUrl/bulkSave HTTP/1.1\r\nHost: api\r\nContent-Type: application/json\r\nContent-Length: 2097152\r\n\r\n');
      s.write(`{"data":"${'x'.repeat(64 * 1024)}`);
    }, 5_000);
    expect(big.text).toMatch(/^HTTP\/1\.1 401 /);
    expect(big.text).toContain('"code":"SML003"');
    expect(big.closedAfterMs).not.toBeNull();
    expect(big.closedAfterMs!).toBeLessThan(LINGER_MS + 2_000);
  });

  it('a valid key without the scope gets 403 before a malformed body is looked at', async () => {
    const reader = await fx.org('BUSINESS', { label: 'reader', scopes: 'links:read' });
    const r = await reader.client.saveRaw('{not json');
    expect(r.status).toBe(403);
    expect((r.body as ErrorBody).errors?.[0]?.code).toBe('SML010');
  });
});

describe('slow clients are cut off', () => {
  it('answers 408 VE001 and closes a connection whose headers are not complete 10 s after they began, even while bytes trickle in', async () => {
    let trickle: NodeJS.Timeout | undefined;
    const [silent, trickling] = await Promise.all([
      rawExchange((s) => s.write('GET /link/external/v1/shortenedUrl HTTP/1.1\r\nHost: api\r\n'), 16_000),
      rawExchange((s) => {
        s.write('GET /link/external/v1/shortenedUrl HTTP/1.1\r\nHost: api\r\n');
        trickle = setInterval(() => s.writable && s.write('X-Slow: 1\r\n'), 500);
      }, 16_000),
    ]);
    clearInterval(trickle);
    for (const r of [silent, trickling]) {
      // The answer, in the envelope, not Fastify's own body; then a lingering close.
      expect(r.text).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
      expect(r.text.toLowerCase()).toContain('content-type: application/json');
      expect(r.text.toLowerCase()).toContain('connection: close');
      expect(r.text.slice(r.text.indexOf('\r\n\r\n') + 4)).toBe('{"errors":[{"code":"VE001","message":"Request not received in time"}]}');
      expect(r.firstDataMs!).toBeGreaterThanOrEqual(9_500);
      expect(r.firstDataMs!).toBeLessThan(12_500);
      expect(r.closedAfterMs).not.toBeNull();
      expect(r.closedAfterMs! - r.firstDataMs!).toBeLessThan(LINGER_MS + 1_000);
    }
  }, 25_000);
});

describe('README', () => {
  it("the Security section states the API's timeouts and the negative key cache as configured", () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const security = readme.slice(readme.indexOf('## Security'), readme.indexOf('\n## ', readme.indexOf('## Security') + 1)).replace(/\s+/g, ' ');
    const s = (ms: number): string => `${ms / 1000} s`;
    expect(security).toContain(`not complete ${s(HEADERS_TIMEOUT_MS)} after they began`);
    expect(security).toContain(`takes over ${s(REQUEST_TIMEOUT_MS)}`);
    expect(security).toContain(`idle sockets close after ${s(IDLE_SOCKET_TIMEOUT_MS)}`);
    expect(security).toContain(`idle keep-alive connections after ${s(KEEP_ALIVE_TIMEOUT_MS)}`);
    expect(security).toContain(`Unknown keys are remembered for ${s(NEGATIVE_KEY_TTL_MS)}`);
    expect(security).toContain(`bounded LRU of ${NEGATIVE_KEY_ENTRIES.toLocaleString('en')} per API process`);
  });
});
