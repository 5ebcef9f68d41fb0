// Invariant: reads exactly one HTTP/1.1 response to a GET from the bytes of a keep-alive
// connection, fed in whatever pieces the socket delivers: its status, whether the server will
// close the connection, and the end of its body (Content-Length, chunked, or until close). A head
// larger than MAX_HEAD_BYTES, bytes after the response, or anything malformed is an error, never a
// guess. The parser holds at most one head's bytes; bodies are counted, not kept.

export const MAX_HEAD_BYTES = 64 * 1024;

export type ParseOutcome =
  /** More bytes are needed. */
  | { kind: 'more' }
  /** The response is complete; `close` says the server ends the connection after it. */
  | { kind: 'done'; status: number; close: boolean }
  | { kind: 'error'; reason: string };

const MORE: ParseOutcome = { kind: 'more' };
const CRLFCRLF = Buffer.from('\r\n\r\n');
const CRLF = Buffer.from('\r\n');
const TOO_LONG = -2;

type State = 'head' | 'length' | 'chunk-size' | 'chunk-data' | 'chunk-end' | 'trailer' | 'until-close' | 'done';

export class ResponseParser {
  #state: State = 'head';
  #pending: Buffer | null = null;
  #status = 0;
  #close = false;
  #remaining = 0;

  /** Starts reading the next response (after one was done). */
  reset(): void {
    this.#state = 'head';
    this.#pending = null;
    this.#remaining = 0;
  }

  /** True while a response is read only until the connection closes (no length, no chunks). */
  get endsAtClose(): boolean {
    return this.#state === 'until-close';
  }

  /** The response ended by the connection's close (for `endsAtClose` responses). */
  closed(): ParseOutcome {
    if (this.#state !== 'until-close') return { kind: 'error', reason: 'connection closed mid-response' };
    this.#state = 'done';
    return { kind: 'done', status: this.#status, close: true };
  }

  feed(chunk: Buffer): ParseOutcome {
    const buf = this.#pending === null ? chunk : Buffer.concat([this.#pending, chunk]);
    this.#pending = null;
    let at = 0;
    for (;;) {
      if (this.#state === 'done') {
        if (at < buf.length) return { kind: 'error', reason: 'bytes after the response' };
        return { kind: 'done', status: this.#status, close: this.#close };
      }
      if (at >= buf.length || this.#state === 'until-close') return MORE;
      switch (this.#state) {
        case 'head': {
          const end = this.#find(buf, at, CRLFCRLF, MAX_HEAD_BYTES);
          if (end === TOO_LONG) return { kind: 'error', reason: 'response head too large' };
          if (end < 0) return MORE;
          const problem = this.#head(buf.toString('latin1', at, end));
          if (problem !== null) return { kind: 'error', reason: problem };
          at = end + 4;
          break;
        }
        case 'length': {
          at = this.#skip(buf, at);
          if (this.#remaining === 0) this.#state = 'done';
          break;
        }
        case 'chunk-size': {
          const end = this.#find(buf, at, CRLF, 1024);
          if (end === TOO_LONG) return { kind: 'error', reason: 'bad chunk size' };
          if (end < 0) return MORE;
          const size = Number.parseInt(buf.toString('latin1', at, end).split(';')[0] ?? '', 16);
          if (!Number.isFinite(size) || size < 0) return { kind: 'error', reason: 'bad chunk size' };
          at = end + 2;
          if (size === 0) this.#state = 'trailer';
          else {
            this.#remaining = size;
            this.#state = 'chunk-data';
          }
          break;
        }
        case 'chunk-data': {
          at = this.#skip(buf, at);
          if (this.#remaining === 0) {
            this.#remaining = 2;
            this.#state = 'chunk-end';
          }
          break;
        }
        case 'chunk-end': {
          at = this.#skip(buf, at);
          if (this.#remaining === 0) this.#state = 'chunk-size';
          break;
        }
        case 'trailer': {
          const end = this.#find(buf, at, CRLF, MAX_HEAD_BYTES);
          if (end === TOO_LONG) return { kind: 'error', reason: 'response trailer too large' };
          if (end < 0) return MORE;
          if (end === at) this.#state = 'done';
          at = end + 2;
          break;
        }
      }
    }
  }

  /** Consumes up to #remaining bytes from `at`; returns where it stopped. */
  #skip(buf: Buffer, at: number): number {
    const take = Math.min(this.#remaining, buf.length - at);
    this.#remaining -= take;
    return at + take;
  }

  /**
   * Where `sep` starts at or after `at`; when it is not there yet, keeps the bytes from `at` for the
   * next piece and returns -1, or TOO_LONG when more than `max` bytes wait for it.
   */
  #find(buf: Buffer, at: number, sep: Buffer, max: number): number {
    const end = buf.indexOf(sep, at);
    if (end >= 0) return end;
    if (buf.length - at > max) return TOO_LONG;
    this.#pending = buf.subarray(at);
    return -1;
  }

  /** Reads the status line and the headers that frame the body; null when they are sound. */
  #head(head: string): string | null {
    const lines = head.split('\r\n');
    const m = /^HTTP\/1\.([01]) (\d{3})(?: |$)/.exec(lines[0] ?? '');
    if (m === null) return 'bad status line';
    this.#status = Number(m[2]);
    let length: number | null = null;
    let chunked = false;
    let connection = '';
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i] ?? '';
      const colon = line.indexOf(':');
      if (colon <= 0) return 'bad header line';
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      if (name === 'content-length') {
        if (!/^\d+$/.test(value)) return 'bad content-length';
        length = Number(value);
      } else if (name === 'transfer-encoding') chunked = value.toLowerCase().split(',').pop()?.trim() === 'chunked';
      else if (name === 'connection') connection = value.toLowerCase();
    }
    this.#close = m[1] === '0' ? !connection.includes('keep-alive') : connection.includes('close');
    const bodyless = this.#status === 204 || this.#status === 304 || (this.#status >= 100 && this.#status < 200);
    if (bodyless) this.#state = 'done';
    else if (chunked) this.#state = 'chunk-size';
    else if (length !== null) {
      this.#remaining = length;
      this.#state = length === 0 ? 'done' : 'length';
    } else {
      this.#close = true;
      this.#state = 'until-close';
    }
    return null;
  }
}
