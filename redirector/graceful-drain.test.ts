// Invariant: a draining redirector loses no request. close() stops accepting connections at once,
// answers every request it already received (a slow one included) with its connection closed
// after the answer, answers requests arriving on open keep-alive connections the same way,
// closes idle connections, and resolves only then.
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { MemoryHitSink } from '../shared/analytics/events/memory-hit-sink.ts';
import { MemoryInvalidationBus } from '../shared/bus/memory-invalidation-bus.ts';
import { seedLink, seedOrg } from '../test/support/seed.ts';
import { createTestDatabase, type TestDatabase } from '../test/support/servers.ts';
import { createRedirectorServer, type RedirectorServer } from './create-redirector.ts';
import { memoryRedirectorPorts } from '../test/support/redirector-ports.ts';

/** One keep-alive connection: send a request, read one response (status, headers) at a time. */
class RawConnection {
  readonly socket: Socket;
  #buffer = '';
  #waiters: (() => void)[] = [];
  closed = false;

  constructor(port: number) {
    this.socket = connect(port, '127.0.0.1');
    this.socket.on('data', (c: Buffer) => {
      this.#buffer += c.toString('latin1');
      for (const w of this.#waiters.splice(0)) w();
    });
    this.socket.on('close', () => {
      this.closed = true;
      for (const w of this.#waiters.splice(0)) w();
    });
    this.socket.on('error', () => {});
  }

  opened(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.socket.once('connect', resolve);
      this.socket.once('error', reject);
    });
  }

  send(path: string): void {
    this.socket.write(`GET ${path} HTTP/1.1\r\nHost: sho.rt\r\n\r\n`);
  }

  /** The next response's status line and headers (bodies here are small and fully buffered). */
  async response(): Promise<{ status: number; headers: string }> {
    for (;;) {
      const end = this.#buffer.indexOf('\r\n\r\n');
      if (end >= 0) {
        const head = this.#buffer.slice(0, end);
        const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
        if (this.#buffer.length >= end + 4 + length) {
          this.#buffer = this.#buffer.slice(end + 4 + length);
          return { status: Number(head.split(' ')[1]), headers: head.toLowerCase() };
        }
      }
      if (this.closed) throw new Error('connection closed before a response');
      await new Promise<void>((r) => this.#waiters.push(r));
    }
  }

  async untilClosed(timeoutMs: number): Promise<boolean> {
    const end = Date.now() + timeoutMs;
    while (!this.closed && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
    return this.closed;
  }
}

let db: TestDatabase;
let server: RedirectorServer;
const sink = new MemoryHitSink();

beforeAll(async () => {
  db = await createTestDatabase(inject('embeddedPgUrl'));
  server = await createRedirectorServer({
    sql: db.sql,
    bus: new MemoryInvalidationBus(),
    ...memoryRedirectorPorts(db.sql),
    hitSink: sink,
    config: {
      REDIRECT_HOST: '127.0.0.1',
      REDIRECT_PORT: 0,
      LINK_CACHE_ENTRIES: 100,
      TRUST_PROXY: { kind: 'hops', hops: 0 },
      DEFAULT_SHORT_DOMAIN: 'sho.rt',
      SHUTDOWN_GRACE_MS: 10_000,
    },
  });
});

afterAll(async () => {
  await server?.close();
  await db?.drop();
});

describe('graceful drain', () => {
  it('answers what it received, refuses new connections, closes keep-alive connections politely', async () => {
    const org = await seedOrg(db.sql, 'PRO');
    const { shortCode } = await seedLink(db.sql, { orgId: org, url: 'https://drain.example/' });
    const port = server.port;

    const active = new RawConnection(port);
    const idle = new RawConnection(port);
    const slow = new RawConnection(port);
    await Promise.all([active.opened(), idle.opened(), slow.opened()]);
    active.send('/readyz');
    const before = await active.response();
    expect(before.status).toBe(200);
    expect(before.headers).not.toContain('connection: close');
    idle.send('/healthz');
    expect((await idle.response()).status).toBe(200);

    // Hold the link's load in Postgres: the request is received but cannot be answered yet.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const locked = db.sql.begin(async (tx) => {
      await tx`lock table links in access exclusive mode`;
      await held;
    });
    await new Promise((r) => setTimeout(r, 100));
    slow.send(`/${shortCode}`);
    await new Promise((r) => setTimeout(r, 100));

    const drained = server.close();
    await new Promise((r) => setTimeout(r, 50));
    const refused = await new RawConnection(port).opened().then(
      () => false,
      () => true,
    );
    expect(refused).toBe(true);

    // A request on an open keep-alive connection is answered, and once the drain asks clients to
    // go (after the listen-socket settle delay) the connection is closed after its answer.
    let during = { status: 0, headers: '' };
    for (const end = Date.now() + 3_000; Date.now() < end; ) {
      active.send('/readyz');
      during = await active.response();
      if (during.status === 503) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(during.status).toBe(503); // not ready: a load balancer stops sending here
    expect(during.headers).toContain('connection: close'); // clients reconnect without an error
    expect(await active.untilClosed(1_000)).toBe(true);

    // The slow request is still answered once Postgres answers.
    release();
    await locked;
    const answer = await slow.response();
    expect(answer.status).toBe(302);
    expect(answer.headers).toContain('location: https://drain.example/');
    expect(answer.headers).toContain('connection: close');
    expect(await slow.untilClosed(1_000)).toBe(true);

    await drained;
    expect(await idle.untilClosed(1_000)).toBe(true);
    expect(sink.hits.map((h) => h.link.shortCode)).toEqual([shortCode]);
  });
});
