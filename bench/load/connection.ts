// Invariant: one keep-alive HTTP/1.1 connection (plain TCP or TLS) carrying one request at a time.
// Every request written gets exactly one outcome through onDone: a status, or an error kind (the
// socket's error code in words, a timeout, a malformed or cut-off response). A connection the
// server closed, or that failed, is opened again by the next request, whose latency then includes
// the connect.
import { connect as connectTcp, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';
import { ResponseParser } from './http1.ts';

export interface Target {
  tls: boolean;
  host: string;
  port: number;
}

export type Outcome = { status: number; error: null } | { status: 0; error: string };

/** Error kinds by the socket error's code; anything else is named by its code. */
const KINDS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection reset',
  ETIMEDOUT: 'connect timeout',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ENOTFOUND: 'DNS lookup failed',
  EAI_AGAIN: 'DNS lookup failed',
  EADDRNOTAVAIL: 'no local port',
  EMFILE: 'too many open files',
};

export function errorKind(err: Error & { code?: string }): string {
  const code = err.code ?? '';
  if (KINDS[code] !== undefined) return KINDS[code];
  if (code.startsWith('ERR_TLS') || code.startsWith('ERR_SSL') || code.includes('CERT')) return `TLS (${code})`;
  return code === '' ? err.message : code;
}

export class Connection {
  /** When the request in flight was written (performance.now()), NaN when idle. */
  sentAt = Number.NaN;
  /** What the request in flight's latency counts from, and the generator's lateness in sending it (ms, the run's clock). */
  originMs = 0;
  lateMs = 0;
  #socket: Socket | null = null;
  readonly #parser = new ResponseParser();
  #inFlight = false;

  constructor(
    readonly id: number,
    readonly target: Target,
    private readonly onDone: (c: Connection, o: Outcome) => void,
  ) {}

  get busy(): boolean {
    return this.#inFlight;
  }

  /** Opens the connection ahead of the first request; rejects with the error kind. */
  open(): Promise<void> {
    return new Promise((resolve, reject) => {
      const s = this.#connect();
      const failed = (err: Error): void => reject(new Error(errorKind(err)));
      s.once('error', failed);
      s.once(this.target.tls ? 'secureConnect' : 'connect', () => {
        s.off('error', failed);
        resolve();
      });
    });
  }

  send(request: string, sentAt: number): void {
    this.#inFlight = true;
    this.sentAt = sentAt;
    this.#parser.reset();
    const s = this.#socket ?? this.#connect();
    s.write(request, 'latin1');
  }

  /** Gives up on the request in flight (a timeout): it fails with `kind` and the connection is dropped. */
  abort(kind: string): void {
    const s = this.#socket;
    this.#socket = null;
    s?.destroy();
    this.#finish({ status: 0, error: kind });
  }

  close(): void {
    const s = this.#socket;
    this.#socket = null;
    s?.destroy();
  }

  #connect(): Socket {
    const { host, port } = this.target;
    const s = this.target.tls ? connectTls({ host, port, servername: host, ALPNProtocols: ['http/1.1'] }) : connectTcp({ host, port });
    s.setNoDelay(true);
    this.#socket = s;
    s.on('data', (chunk: Buffer) => {
      if (this.#socket !== s) return;
      if (!this.#inFlight) return this.#drop(s);
      const r = this.#parser.feed(chunk);
      if (r.kind === 'more') return;
      if (r.kind === 'error') {
        this.#drop(s);
        return this.#finish({ status: 0, error: 'bad response' });
      }
      if (r.close) this.#drop(s);
      this.#finish({ status: r.status, error: null });
    });
    s.on('error', (err) => {
      if (this.#socket !== s) return;
      this.#drop(s);
      this.#finish({ status: 0, error: errorKind(err) });
    });
    s.on('close', () => {
      if (this.#socket !== s) return;
      this.#socket = null;
      if (this.#parser.endsAtClose) {
        const r = this.#parser.closed();
        if (r.kind === 'done') return this.#finish({ status: r.status, error: null });
      }
      this.#finish({ status: 0, error: 'closed by server' });
    });
    return s;
  }

  #drop(s: Socket): void {
    if (this.#socket === s) this.#socket = null;
    s.destroy();
  }

  #finish(o: Outcome): void {
    if (!this.#inFlight) return;
    this.#inFlight = false;
    this.onDone(this, o);
  }
}
