// Invariant: every InvalidationBus adapter passes this one suite unchanged. A harness opens buses
// on one shared medium (each `open()` stands for another process where the adapter can cross
// processes), can put a raw payload on the wire when the adapter has one, and removes what it made.
// Each test tags its messages with its own token, so a late message from another test never counts.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BusErrorReporter } from './handler-set.ts';
import type { Invalidation, InvalidationBus } from './invalidation-bus.ts';

export interface InvalidationBusHarness {
  open(): Promise<InvalidationBus>;
  /** Publishes a payload as-is on the adapter's channel; null for an in-process adapter. */
  publishRaw: ((payload: string) => Promise<void>) | null;
  cleanup(): Promise<void>;
}

export type MakeInvalidationBusHarness = (onError: BusErrorReporter) => Promise<InvalidationBusHarness>;

const DELIVERY_MS = 1_000;

const idOf = (m: Invalidation): string => {
  switch (m.kind) {
    case 'link':
      return m.shortCode;
    case 'org':
      return m.orgId;
    case 'app':
      return m.mobileAppId;
    case 'domain':
      return m.host;
  }
};

function allKinds(token: string): Invalidation[] {
  return [
    { kind: 'link', shortCode: `code_${token}` },
    { kind: 'org', orgId: `org-${token}` },
    { kind: 'app', mobileAppId: `app${token}` },
    { kind: 'domain', host: `go-${token}.example.com` },
  ];
}

async function waitFor(condition: () => boolean, ms = DELIVERY_MS): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`not delivered within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Settles briefly, for asserting that something did NOT arrive. */
const settle = (): Promise<void> => new Promise((r) => setTimeout(r, 150));

/** `wire: false` for adapters without a transport (memory): they cannot receive a malformed payload. */
export function invalidationBusContract(name: string, makeHarness: MakeInvalidationBusHarness, opts: { wire: boolean } = { wire: true }): void {
  describe(`InvalidationBus contract: ${name}`, () => {
    let harness: InvalidationBusHarness;
    const errors: Error[] = [];
    const opened = new Set<InvalidationBus>();

    const open = async (): Promise<InvalidationBus> => {
      const bus = await harness.open();
      opened.add(bus);
      return bus;
    };

    /** Subscribes a collector that keeps only this test's messages. */
    const collect = async (bus: InvalidationBus, token: string) => {
      const received: Invalidation[] = [];
      const unsubscribe = await bus.subscribe((m) => {
        if (idOf(m).includes(token)) received.push(m);
      });
      return { received, unsubscribe };
    };

    beforeAll(async () => {
      harness = await makeHarness((e) => errors.push(e));
    });
    afterAll(async () => {
      for (const bus of opened) await bus.close();
      await harness?.cleanup();
    });

    it('delivers every kind of message intact and in order', async () => {
      const token = randomBytes(4).toString('hex');
      const [publisher, subscriber] = [await open(), await open()];
      const sub = await collect(subscriber, token);
      const messages = allKinds(token);
      for (const m of messages) await publisher.publish(m);
      await waitFor(() => sub.received.length >= messages.length);
      expect(sub.received).toEqual(messages);
      await sub.unsubscribe();
    });

    it('delivers within a second', async () => {
      const token = randomBytes(4).toString('hex');
      const [publisher, subscriber] = [await open(), await open()];
      const sub = await collect(subscriber, token);
      const started = performance.now();
      await publisher.publish({ kind: 'link', shortCode: `fast_${token}` });
      await waitFor(() => sub.received.length === 1);
      expect(performance.now() - started).toBeLessThan(DELIVERY_MS);
      await sub.unsubscribe();
    });

    it('delivers to every subscriber, on one bus and on several', async () => {
      const token = randomBytes(4).toString('hex');
      const [publisher, busA, busB] = [await open(), await open(), await open()];
      const subs = [await collect(busA, token), await collect(busA, token), await collect(busB, token)];
      const message: Invalidation = { kind: 'org', orgId: `org-${token}` };
      await publisher.publish(message);
      await waitFor(() => subs.every((s) => s.received.length === 1));
      for (const s of subs) expect(s.received).toEqual([message]);
      for (const s of subs) await s.unsubscribe();
    });

    it('stops delivery to an unsubscribed handler and keeps the others', async () => {
      const token = randomBytes(4).toString('hex');
      const [publisher, subscriber] = [await open(), await open()];
      const leaving = await collect(subscriber, token);
      const staying = await collect(subscriber, token);
      await publisher.publish({ kind: 'app', mobileAppId: `a${token}1` });
      await waitFor(() => leaving.received.length === 1 && staying.received.length === 1);
      await leaving.unsubscribe();
      await leaving.unsubscribe(); // idempotent
      await publisher.publish({ kind: 'app', mobileAppId: `a${token}2` });
      await waitFor(() => staying.received.length === 2);
      await settle();
      expect(leaving.received).toHaveLength(1);
      await staying.unsubscribe();
    });

    it('keeps delivering to the others when a handler throws, and reports it', async () => {
      const token = randomBytes(4).toString('hex');
      const [publisher, subscriber] = [await open(), await open()];
      const before = errors.length;
      const unsubscribeThrower = await subscriber.subscribe(() => {
        throw new Error(`boom ${token}`);
      });
      const sub = await collect(subscriber, token);
      await publisher.publish({ kind: 'domain', host: `h-${token}.example.com` });
      await publisher.publish({ kind: 'domain', host: `i-${token}.example.com` });
      await waitFor(() => sub.received.length === 2);
      expect(errors.slice(before).filter((e) => e.message.includes(`boom ${token}`))).toHaveLength(2);
      await unsubscribeThrower();
      await sub.unsubscribe();
    });

    it('refuses to publish a message that is not an Invalidation', async () => {
      const publisher = await open();
      for (const bad of [{ kind: 'link', shortCode: '' }, { kind: 'user', id: 'x' }, { kind: 'org' }]) {
        await expect(publisher.publish(bad as unknown as Invalidation)).rejects.toThrow();
      }
    });

    if (opts.wire)
      it('ignores malformed payloads on the wire, reports them, and keeps delivering', async () => {
        const publishRaw = harness.publishRaw;
        if (!publishRaw) throw new Error(`${name}: a wire adapter must provide publishRaw`);
        const token = randomBytes(4).toString('hex');
        const [publisher, subscriber] = [await open(), await open()];
        const sub = await collect(subscriber, token);
        const before = errors.length;
        const malformed = [
          'not json',
          '',
          'null',
          '[]',
          `{"kind":"link"}`,
          `{"kind":"link","shortCode":42}`,
          `{"kind":"user","id":"x_${token}"}`,
          `{"kind":"org","orgId":""}`,
        ];
        for (const payload of malformed) await publishRaw(payload);
        // A member a newer publisher might add is dropped, the message still counts.
        await publishRaw(JSON.stringify({ kind: 'link', shortCode: `extra_${token}`, reason: 'update' }));
        const after: Invalidation = { kind: 'link', shortCode: `after_${token}` };
        await publisher.publish(after);
        await waitFor(() => sub.received.length === 2);
        expect(sub.received).toEqual([{ kind: 'link', shortCode: `extra_${token}` }, after]);
        // Every bus still listening on the medium reports them (earlier tests' buses too).
        const reported = errors.slice(before);
        expect(reported.length).toBeGreaterThanOrEqual(malformed.length);
        expect(reported.every((e) => e.message.includes('malformed'))).toBe(true);
        await sub.unsubscribe();
      });
  });
}
