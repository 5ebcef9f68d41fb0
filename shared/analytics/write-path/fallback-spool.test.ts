// Invariant: with the shared Redis stream unreachable, spooled batches land on this process's
// disk spool (one command timeout per cooldown, not per batch) and are read back from it, each
// once; a spool directory has one live owner, and a dead owner's directory is adopted.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { eventRecords, newOrgId } from '../events/analytics-fixtures.ts';
import { freePort } from '../../net/free-port.ts';
import { FallbackSpool } from './fallback-spool.ts';
import { FileSpool } from './file-spool.ts';
import { RedisStreamSpool } from './redis-stream-spool.ts';
import { claimSpoolDirectory } from './spool-directory.ts';

const root = mkdtempSync(join(process.cwd(), '.tmp', 'fallback-spool-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('FallbackSpool', () => {
  it('spools to disk while Redis is down, quickly, and reads each batch back once', async () => {
    const redis = new Redis({ host: '127.0.0.1', port: await freePort(), commandTimeout: 300, maxRetriesPerRequest: 1 });
    redis.on('error', () => {});
    const switches: boolean[] = [];
    const spool = new FallbackSpool({
      primary: new RedisStreamSpool({ prefix: 'dead:', redis }),
      fallback: await FileSpool.open(join(root, 'disk')),
      cooldownMs: 60_000,
      onSwitch: (d) => switches.push(d),
    });
    const orgId = newOrgId();
    const started = Date.now();
    for (let i = 0; i < 20; i++) await spool.append({ token: `t${i}`, records: eventRecords(orgId, 10, 1_767_225_600_000_000n) });
    expect(Date.now() - started).toBeLessThan(2_000); // one timeout, then straight to disk
    expect(switches).toEqual([true]);
    expect(await spool.size()).toBe(20);
    const entries = await spool.peek(100);
    expect(entries.map((e) => e.batch.token)).toEqual(Array.from({ length: 20 }, (_, i) => `t${i}`));
    for (const e of entries) await spool.ack(e.id);
    expect(await spool.size()).toBe(0);
    await spool.close();
    redis.disconnect();
  });
});

describe('claimSpoolDirectory', () => {
  it('gives each live process its own slot and adopts a dead owner’s', async () => {
    const base = join(root, 'slots');
    const mine = claimSpoolDirectory(base);
    // Another live process holds slot-1.
    const holder = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        `
      import { claimSpoolDirectory } from ${JSON.stringify(join(import.meta.dirname, 'spool-directory.ts'))};
      const c = claimSpoolDirectory(${JSON.stringify(base)}); console.log(c.dir); setInterval(() => {}, 1000);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const theirs = await new Promise<string>((resolve) => holder.stdout.once('data', (d: Buffer) => resolve(d.toString().trim())));
    expect(theirs).not.toBe(mine.dir);
    expect(claimSpoolDirectory(base).dir).not.toBe(theirs); // still held: skipped
    holder.kill('SIGKILL');
    await new Promise((r) => holder.once('exit', r));
    mine.release();
    const a = claimSpoolDirectory(base);
    const b = claimSpoolDirectory(base);
    expect([a.dir, b.dir].sort()).toEqual([mine.dir, theirs].sort()); // both freed slots are reused
  }, 30_000);

  it('goes by the kernel-held lock, never by a pid: a slot naming a live pid (this one, pid 1) but unlocked is free', () => {
    const base = join(root, 'pid-slots');
    mkdirSync(join(base, 'slot-0'), { recursive: true });
    mkdirSync(join(base, 'slot-1'), { recursive: true });
    // What a process in another container left after a restart: the same pid as a live process.
    writeFileSync(join(base, 'slot-0', '.owner'), `${process.pid}\n`);
    writeFileSync(join(base, 'slot-1', '.owner'), '1\n');
    const a = claimSpoolDirectory(base);
    const b = claimSpoolDirectory(base);
    expect([a.dir, b.dir]).toEqual([join(base, 'slot-0'), join(base, 'slot-1')]);
    // Held now, even against this very process: a third claim takes the next slot.
    expect(claimSpoolDirectory(base).dir).toBe(join(base, 'slot-2'));
  });
});
