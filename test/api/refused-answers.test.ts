// Invariant: every answer of the API that closes its connection early is read by the client, not
// lost to a TCP reset: headers over node:http's limit (431), a body over 1 MiB (400 VE001), a bad
// key before a body (401), a malformed request (400), oversized chunk extensions (413), each in
// the envelope, over plain sockets, while the client is still sending; and lingering is bounded
// in time and bytes.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LINGER_BYTES, LINGER_MS } from '../../shared/net/lingering-close.ts';
import { bootApi, type ApiFixture, type Org } from '../support/api-fixture.ts';
import { headerFlood, rawRequest, type RawAnswer } from '../support/refused-requests.ts';

let fx: ApiFixture;
let biz: Org;
beforeAll(async () => {
  fx = await bootApi();
  biz = await fx.org('BUSINESS');
});
afterAll(async () => fx?.close());

const port = (): number => Number(new URL(fx.svc.api).port);
const envelope = (message: string): string => JSON.stringify({ errors: [{ code: 'VE001', message }] });

/** `tries` exchanges, one at a time; the ones that did not read a whole `status` answer. */
async function unread(tries: number, status: number, exchange: () => Promise<RawAnswer>): Promise<RawAnswer[]> {
  const failures: RawAnswer[] = [];
  for (let i = 0; i < tries; i++) {
    const a = await exchange();
    if (a.status !== status || !a.complete) failures.push(a);
  }
  return failures;
}

describe('refused requests get their answer, not a reset', () => {
  it('1,000 requests with 100 KB of distinct Host or User-Agent each read a whole 431 VE001', async () => {
    const { failures, bodies } = await headerFlood(port(), { tries: 1_000, concurrency: 16, size: 100 * 1024, expected: 431 });
    expect(failures.map((f) => `${f.status} ${f.error}`)).toEqual([]);
    expect([...bodies]).toEqual([envelope('Request header fields too large')]);
  });

  it('a body over 1 MiB (400 VE001), and a bad key before a 2 MB body (401), are read while the body is still being sent', async () => {
    const body = Buffer.alloc(2_000_000, 'a');
    const head = (key: string): string =>
      `POST /link/external/v1/shortenedUrl/bulkSave HTTP/1.1\r\nHost: api\r\nX-API-KEY: ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`;
    expect(await unread(100, 400, () => rawRequest(port(), head(biz.key), body))).toEqual([]);
    expect(await unread(100, 401, () => rawRequest(port(), head('slk_wrong'), body))).toEqual([]);
    const tooLarge = await rawRequest(port(), head(biz.key), body);
    expect(JSON.parse(tooLarge.body)).toEqual({ errors: [{ code: 'VE001', message: 'Request body exceeds the 1 MiB limit' }] });
  });

  it('a malformed request is 400 VE001 and oversized chunk extensions 413 VE001, read while junk follows', async () => {
    const junk = Buffer.alloc(1_000_000, 'j');
    const malformed = 'GET /healthz HTTP/1.1\r\nHost: api\r\nNot a header line\r\n\r\n';
    expect(await unread(100, 400, () => rawRequest(port(), malformed, junk))).toEqual([]);
    const bad = await rawRequest(port(), malformed, junk);
    expect(bad.body).toBe(envelope('Malformed HTTP request'));
    expect(bad.headers['content-type']).toBe('application/json; charset=utf-8');
    const chunked = `POST /healthz HTTP/1.1\r\nHost: api\r\nTransfer-Encoding: chunked\r\n\r\n1;${'e'.repeat(20 * 1024)}\r\n`;
    const ext = await rawRequest(port(), chunked, junk);
    expect(ext.status).toBe(413);
    expect(ext.body).toBe(envelope('Chunk extensions too large'));
  });

  it('lingering is bounded: a client that keeps sending is closed after LINGER_MS, or once it sent LINGER_BYTES', async () => {
    const malformed = 'GET /healthz HTTP/1.1\r\nHost: api\r\nNot a header line\r\n\r\n';
    const trickle = await new Promise<{ answeredMs: number; closedMs: number }>((resolve) => {
      const started = Date.now();
      let answeredMs = -1;
      let timer: NodeJS.Timeout | undefined;
      // Half-open: it keeps sending after the server's FIN, as a slowloris would.
      const s = connect({ port: port(), host: '127.0.0.1', allowHalfOpen: true }, () => {
        s.write(malformed);
        timer = setInterval(() => s.writable && s.write('x'), 100);
      });
      s.on('data', () => {
        if (answeredMs < 0) answeredMs = Date.now() - started;
      });
      s.on('error', () => {});
      s.on('close', () => {
        clearInterval(timer);
        resolve({ answeredMs, closedMs: Date.now() - started });
      });
    });
    expect(trickle.answeredMs).toBeGreaterThanOrEqual(0);
    expect(trickle.closedMs - trickle.answeredMs).toBeGreaterThanOrEqual(LINGER_MS - 200);
    expect(trickle.closedMs - trickle.answeredMs).toBeLessThan(LINGER_MS + 1_000);
    // A flood after the answer is cut (reset) once it passed LINGER_BYTES, long before its end.
    const flood = await rawRequest(port(), malformed, Buffer.alloc(LINGER_BYTES * 64, 'f'));
    expect(flood.error).toMatch(/^(ECONNRESET|EPIPE)$/);
  });
});
