// Invariant: clients for refused requests over plain node:net sockets, one connection per request:
// what the server answered (status line, headers, body as far as it came) and whether the
// connection ended in a reset or error instead of an orderly close. Nothing is retried.
import { connect } from 'node:net';

export interface RawAnswer {
  /** e.g. 431; null when no status line arrived. */
  status: number | null;
  headers: Record<string, string>;
  body: string;
  /** The socket error (ECONNRESET, EPIPE, …) the connection ended with, if any. */
  error: string | null;
  /** True when the whole body that Content-Length announced arrived. */
  complete: boolean;
}

export interface SendOptions {
  /** Wait this long after the headers before the body. */
  delayMs?: number;
  /** Send the body again every this many ms until `totalBytes` were sent or the connection closed. */
  repeatEveryMs?: number;
  totalBytes?: number;
  /** Keep sending after the server's FIN, as a client uploading a body does, and end after the body. */
  halfOpen?: boolean;
}

/** Sends `head`, then `body` (if any) as `o` says, and reads until the server closes. */
export function rawRequest(port: number, head: string, body: Buffer | null = null, o: SendOptions = {}): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const s = connect({ port, host: '127.0.0.1', allowHalfOpen: o.halfOpen ?? false });
    const chunks: Buffer[] = [];
    let error: string | null = null;
    s.on('data', (d: Buffer) => chunks.push(d));
    s.on('error', (e: NodeJS.ErrnoException) => {
      error = e.code ?? e.message;
    });
    let dripping: NodeJS.Timeout | undefined;
    s.on('close', () => {
      clearInterval(dripping);
      resolve({ ...parseAnswer(Buffer.concat(chunks).toString('latin1')), error });
    });
    s.write(head);
    if (body === null) return;
    const total = o.totalBytes ?? body.length;
    let sent = 0;
    const send = (): void => {
      if (s.destroyed || s.writableEnded) {
        clearInterval(dripping);
        return;
      }
      s.write(body, () => {});
      sent += body.length;
      if (sent < total) return;
      clearInterval(dripping);
      if (o.halfOpen) s.end();
    };
    const start = (): void => {
      send();
      if (o.repeatEveryMs !== undefined && sent < total) dripping = setInterval(send, o.repeatEveryMs);
    };
    if ((o.delayMs ?? 0) > 0) setTimeout(start, o.delayMs);
    else start();
  });
}

function parseAnswer(text: string): Omit<RawAnswer, 'error'> {
  const end = text.indexOf('\r\n\r\n');
  const status = /^HTTP\/1\.1 (\d{3}) /.exec(text);
  if (end < 0 || !status) return { status: status ? Number(status[1]) : null, headers: {}, body: '', complete: false };
  const headers: Record<string, string> = {};
  for (const line of text.slice(0, end).split('\r\n').slice(1)) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const body = text.slice(end + 4);
  const complete = headers['content-length'] !== undefined && Buffer.byteLength(body, 'latin1') === Number(headers['content-length']);
  return { status: Number(status[1]), headers, body, complete };
}

/** A GET whose Host (odd tries) or User-Agent (even tries) is `size` distinct bytes, with Connection: close. */
export function bigHeaderRequest(i: number, size: number, path = '/abcdefgh'): string {
  const value = `${i}-`.padEnd(size, 'x');
  return i % 2 === 1
    ? `GET ${path} HTTP/1.1\r\nHost: ${value}.test\r\nConnection: close\r\n\r\n`
    : `GET ${path} HTTP/1.1\r\nHost: sho.rt\r\nUser-Agent: ${value}\r\nConnection: close\r\n\r\n`;
}

/**
 * `tries` requests of `bigHeaderRequest`, `concurrency` at a time; returns every answer that is
 * not a whole `expected` answer closed in order (a reset, an error, a close without it), and
 * the answers' distinct bodies.
 */
export async function headerFlood(
  port: number,
  o: { tries: number; concurrency: number; size: number; expected: number },
): Promise<{ failures: RawAnswer[]; bodies: Set<string> }> {
  const failures: RawAnswer[] = [];
  const bodies = new Set<string>();
  let next = 0;
  await Promise.all(
    Array.from({ length: o.concurrency }, async () => {
      while (next < o.tries) {
        const a = await rawRequest(port, bigHeaderRequest(next++, o.size));
        if (a.status !== o.expected || !a.complete || a.error !== null) failures.push(a);
        else bodies.add(a.body);
      }
    }),
  );
  return { failures, bodies };
}
