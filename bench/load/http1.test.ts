import { describe, expect, it } from 'vitest';
import { MAX_HEAD_BYTES, type ParseOutcome, ResponseParser } from './http1.ts';

/** Feeds `text` in pieces of `size` bytes and returns every outcome. */
function feed(text: string, size: number, parser = new ResponseParser()): ParseOutcome[] {
  const bytes = Buffer.from(text, 'latin1');
  const out: ParseOutcome[] = [];
  for (let at = 0; at < bytes.length; at += size) out.push(parser.feed(bytes.subarray(at, at + size)));
  return out;
}

const REDIRECT = 'HTTP/1.1 302 Found\r\nLocation: https://example.com/\r\nContent-Length: 5\r\nDate: x\r\n\r\nhello';
const CHUNKED = 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n10\r\n0123456789abcdef\r\n0\r\nX-Trailer: 1\r\n\r\n';

describe('ResponseParser', () => {
  it('reads a response with a Content-Length whatever the pieces it comes in', () => {
    for (const size of [1, 2, 3, 7, 50, 1000]) {
      const out = feed(REDIRECT, size);
      expect(out.at(-1)).toEqual({ kind: 'done', status: 302, close: false });
      expect(out.slice(0, -1).every((o) => o.kind === 'more')).toBe(true);
    }
  });

  it('reads a chunked body with extensions and trailers, byte by byte too', () => {
    for (const size of [1, 4, 1000]) {
      const out = feed(CHUNKED, size);
      expect(out.at(-1)).toEqual({ kind: 'done', status: 200, close: false });
      expect(out.slice(0, -1).every((o) => o.kind === 'more')).toBe(true);
    }
  });

  it('reads the next response after reset, and says when the server closes', () => {
    const p = new ResponseParser();
    expect(feed(REDIRECT, 1000, p).at(-1)).toMatchObject({ kind: 'done' });
    p.reset();
    expect(feed('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n', 1000, p)).toEqual([{ kind: 'done', status: 404, close: true }]);
    p.reset();
    expect(feed('HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n', 1000, p)).toEqual([{ kind: 'done', status: 200, close: true }]);
    p.reset();
    expect(feed('HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n', 1000, p)).toEqual([{ kind: 'done', status: 200, close: false }]);
    p.reset();
    expect(feed('HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n', 1000, p)).toEqual([{ kind: 'done', status: 304, close: false }]);
  });

  it('reads a body without length up to the close', () => {
    const p = new ResponseParser();
    expect(feed('HTTP/1.1 200 OK\r\n\r\nsome body', 4, p).every((o) => o.kind === 'more')).toBe(true);
    expect(p.endsAtClose).toBe(true);
    expect(p.closed()).toEqual({ kind: 'done', status: 200, close: true });
    const q = new ResponseParser();
    feed('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc', 100, q);
    expect(q.closed()).toEqual({ kind: 'error', reason: 'connection closed mid-response' });
  });

  it('refuses what it cannot read for certain', () => {
    const last = (text: string): ParseOutcome | undefined => feed(text, 1000).at(-1);
    expect(last('SSH-2.0-OpenSSH\r\n\r\n')).toEqual({ kind: 'error', reason: 'bad status line' });
    expect(last('HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n')).toEqual({ kind: 'error', reason: 'bad content-length' });
    expect(last('HTTP/1.1 200 OK\r\nno colon\r\n\r\n')).toEqual({ kind: 'error', reason: 'bad header line' });
    expect(last('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n')).toEqual({ kind: 'error', reason: 'bad chunk size' });
    expect(last(`${REDIRECT}HTTP/1.1`)).toEqual({ kind: 'error', reason: 'bytes after the response' });
    expect(last(`HTTP/1.1 200 OK\r\nX: ${'a'.repeat(MAX_HEAD_BYTES)}`)).toEqual({ kind: 'error', reason: 'response head too large' });
  });
});
