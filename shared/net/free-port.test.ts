// Invariant: freePort hands out bindable ports below the kernel's ephemeral range, and never the
// same port twice to callers asking at once (each holds a claim for ten minutes).
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePort } from './free-port.ts';

describe('freePort', () => {
  it('gives 100 callers asking at once 100 distinct bindable ports below the ephemeral range', async () => {
    const ports = await Promise.all(Array.from({ length: 100 }, () => freePort()));
    expect(new Set(ports).size).toBe(100);
    const ephemeralLow = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    for (const p of ports) expect(p).toBeLessThan(ephemeralLow);
    const servers = await Promise.all(
      ports.map(
        (p) =>
          new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
            const s = createServer();
            s.once('error', reject);
            s.listen(p, '127.0.0.1', () => resolve(s));
          }),
      ),
    );
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  });
});
