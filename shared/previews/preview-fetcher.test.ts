// Invariant: the fetcher is tested against real local HTTP servers: Open Graph extraction,
// framing detection, redirect limits, size cap, deadline, and the address policy (private
// targets refused by default, checked again after every redirect).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPublicAddress } from './address-policy.ts';
import { refusesFraming } from './frame-policy.ts';
import { parseOpenGraph } from './open-graph-parser.ts';
import { fetchPreview, PreviewFetchError } from './preview-fetcher.ts';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
const routes = new Map<string, Handler>();
let server: Server;
let base: string;
let port: number;

beforeAll(async () => {
  server = createServer((req, res) => {
    const h = routes.get(req.url ?? '');
    if (h) h(req, res);
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const html =
  (body: string, headers: Record<string, string> = {}): Handler =>
  (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...headers }).end(body);
  };

describe('parseOpenGraph', () => {
  it('prefers og:, then twitter:, then HTML; decodes entities; resolves the image URL', () => {
    const doc = `<html><head><title>Plain &amp; simple</title>
      <meta name="description" content="html desc">
      <meta name='twitter:title' content='tw title'>
      <meta content="OG &quot;title&quot; &#x263A;" property="og:title" />
      <meta property="og:image" content="/img/a.png?x=1&amp;y=2">
      </head></html>`;
    expect(parseOpenGraph(doc, 'https://site.example/page/')).toEqual({
      title: 'OG "title" ☺',
      description: 'html desc',
      imageUrl: 'https://site.example/img/a.png?x=1&y=2',
    });
    expect(parseOpenGraph('<title>\n  A\n  B </title>', 'https://x.example/')).toEqual({ title: 'A B', description: null, imageUrl: null });
    expect(parseOpenGraph('<meta property="og:image" content="javascript:alert(1)">', 'https://x.example/').imageUrl).toBeNull();
  });
});

describe('refusesFraming', () => {
  it.each([
    ['DENY', undefined, true],
    ['sameorigin', undefined, true],
    [undefined, "default-src 'self'; frame-ancestors 'self'", true],
    [undefined, "frame-ancestors 'none'", true],
    [undefined, 'frame-ancestors https://partner.example', true],
    [undefined, 'frame-ancestors *', false],
    [undefined, 'frame-ancestors https:', false],
    [undefined, "default-src 'self'", false],
    [undefined, undefined, false],
  ])('XFO %s, CSP %s → %s', (xfo, csp, refused) => expect(refusesFraming(xfo, csp)).toBe(refused));
});

describe('isPublicAddress', () => {
  it.each([
    ['8.8.8.8', true],
    ['2001:4860:4860::8888', true],
    ['127.0.0.1', false],
    ['10.1.2.3', false],
    ['172.20.0.1', false],
    ['192.168.1.1', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['0.0.0.0', false],
    ['::1', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:8.8.8.8', true],
    ['fd00::1', false],
    ['fe80::1', false],
    ['not-an-ip', false],
    // IPv4-mapped ::ffff:0:0/96, in every spelling, is judged as the IPv4 address it carries.
    ['::ffff:7f00:1', false],
    ['::FFFF:7F00:0001', false],
    ['0:0:0:0:0:ffff:7f00:1', false],
    ['::ffff:a00:1', false],
    ['::ffff:c0a8:101', false],
    ['::ffff:a9fe:a9fe', false],
    ['::ffff:808:808', true],
    // NAT64 well-known prefix 64:ff9b::/96: likewise (RFC 6052 reserves it for global IPv4).
    ['64:ff9b::7f00:1', false],
    ['64:ff9b::127.0.0.1', false],
    ['64:ff9b::a00:1', false],
    ['64:ff9b::a9fe:a9fe', false],
    ['64:ff9b::808:808', true],
    // Local-use NAT64, IPv4-translated, IPv4-compatible, 6to4 and Teredo forms are refused outright.
    ['64:ff9b:1::7f00:1', false],
    ['64:ff9b:1:7f00:1::', false],
    ['64:ff9b:1::808:808', false],
    ['::ffff:0:7f00:1', false],
    ['::7f00:1', false],
    ['2002:7f00:1::', false],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', false],
    ['fe80::1%eth0', false],
  ])('%s → %s', (ip, ok) => expect(isPublicAddress(ip)).toBe(ok));
});

describe('fetchPreview', () => {
  it('reads Open Graph values and framing headers of the final page after redirects', async () => {
    routes.set('/start', (_q, r) => r.writeHead(301, { location: '/middle' }).end());
    routes.set('/middle', (_q, r) => r.writeHead(302, { location: `${base}/final` }).end());
    routes.set('/final', html('<meta property="og:title" content="Final"><meta property="og:description" content="D">', { 'x-frame-options': 'DENY' }));
    const p = await fetchPreview(`${base}/start`, { allowPrivate: true });
    expect(p).toEqual({ title: 'Final', description: 'D', imageUrl: null, frameRefused: true, finalUrl: `${base}/final` });
  });

  it('refuses loopback and private targets unless allowed, by literal and by name', async () => {
    routes.set('/ok', html('<title>ok</title>'));
    await expect(fetchPreview(`${base}/ok`)).rejects.toThrow(/non-public address 127\.0\.0\.1/);
    await expect(fetchPreview(`http://localhost:${port}/ok`)).rejects.toThrow(/non-public address/);
    await expect(fetchPreview(`http://[::1]:${port}/ok`)).rejects.toThrow(/non-public address/);
  });

  it('refuses loopback written as IPv4-mapped or NAT64 IPv6, before connecting', async () => {
    let requests = 0;
    routes.set('/counted', (_q, r) => {
      requests++;
      r.writeHead(200, { 'content-type': 'text/html' }).end('<title>reached</title>');
    });
    for (const literal of [
      '[::ffff:127.0.0.1]',
      '[::ffff:7f00:1]',
      '[0:0:0:0:0:ffff:7f00:1]',
      '[64:ff9b::7f00:1]',
      '[64:ff9b::127.0.0.1]',
      '[64:ff9b:1::7f00:1]',
    ]) {
      await expect(fetchPreview(`http://${literal}:${port}/counted`)).rejects.toThrow(/non-public address/);
    }
    expect(requests).toBe(0);
  });

  it('uses its own connections without keep-alive', async () => {
    const seen: (string | undefined)[] = [];
    let sockets = 0;
    const onConnection = (): void => void sockets++;
    server.on('connection', onConnection);
    routes.set('/conn', (q, r) => {
      seen.push(q.headers.connection);
      r.writeHead(200, { 'content-type': 'text/html' }).end('<title>c</title>');
    });
    try {
      for (let k = 0; k < 3; k++) expect((await fetchPreview(`${base}/conn`, { allowPrivate: true })).title).toBe('c');
    } finally {
      server.off('connection', onConnection);
    }
    expect(seen).toEqual(['close', 'close', 'close']);
    expect(sockets).toBe(3);
  });

  it('checks the address again after a redirect', async () => {
    // Only 127.0.0.1 counts as allowed here; a redirect to 127.0.0.2 (also loopback) must be refused.
    routes.set('/hop', (_q, r) => r.writeHead(302, { location: `http://127.0.0.2:${port}/ok` }).end());
    const onlyFirst = (ip: string) => ip === '127.0.0.1';
    await expect(fetchPreview(`${base}/hop`, { addressAllowed: onlyFirst })).rejects.toThrow(/127\.0\.0\.2/);
    // By name: the first hop (127.0.0.2) is allowed, the redirect to localhost (127.0.0.1) is not.
    const second = createServer((_q, r) => r.writeHead(302, { location: `http://localhost:${port}/ok` }).end());
    await new Promise<void>((r) => second.listen(0, '127.0.0.2', r));
    try {
      const secondPort = (second.address() as AddressInfo).port;
      await expect(fetchPreview(`http://127.0.0.2:${secondPort}/`, { addressAllowed: (ip) => ip === '127.0.0.2' })).rejects.toThrow(
        /localhost resolves to non-public address 127\.0\.0\.1/,
      );
    } finally {
      second.closeAllConnections();
      await new Promise((r) => second.close(r));
    }
  });

  it('limits redirects and schemes', async () => {
    routes.set('/loop', (_q, r) => r.writeHead(302, { location: '/loop' }).end());
    await expect(fetchPreview(`${base}/loop`, { allowPrivate: true, maxRedirects: 3 })).rejects.toThrow(/more than 3 redirects/);
    routes.set('/to-file', (_q, r) => r.writeHead(302, { location: 'file:///etc/passwd' }).end());
    await expect(fetchPreview(`${base}/to-file`, { allowPrivate: true })).rejects.toThrow(/unsupported scheme/);
  });

  it('reads at most maxBytes of the body', async () => {
    let written = 0;
    routes.set('/huge', (_q, r) => {
      r.writeHead(200, { 'content-type': 'text/html' });
      r.write('<meta property="og:title" content="Head of a huge page">');
      const chunk = 'x'.repeat(64 * 1024);
      const pump = (): void => {
        while (written < 64 * 1024 * 1024) {
          written += chunk.length;
          if (!r.write(chunk)) return void r.once('drain', pump);
        }
        r.end();
      };
      r.on('close', () => (written = Number.POSITIVE_INFINITY));
      pump();
    });
    const p = await fetchPreview(`${base}/huge`, { allowPrivate: true, maxBytes: 100_000 });
    expect(p.title).toBe('Head of a huge page');
  });

  it('gives up at the deadline', async () => {
    routes.set('/slow', () => {
      /* never answers */
    });
    const t0 = Date.now();
    await expect(fetchPreview(`${base}/slow`, { allowPrivate: true, timeoutMs: 300 })).rejects.toBeInstanceOf(PreviewFetchError);
    expect(Date.now() - t0).toBeLessThan(2_000);
  });

  it('non-HTML and error answers', async () => {
    routes.set('/json', (_q, r) => r.writeHead(200, { 'content-type': 'application/json', 'content-security-policy': "frame-ancestors 'none'" }).end('{}'));
    expect(await fetchPreview(`${base}/json`, { allowPrivate: true })).toMatchObject({ title: null, frameRefused: true });
    await expect(fetchPreview(`${base}/missing`, { allowPrivate: true })).rejects.toThrow(/answered 404/);
  });
});
