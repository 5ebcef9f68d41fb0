// Invariant: a Postgres connection that fails while the driver sets it up (its array-type query)
// fails the query that opened it and leaves the process running. Proven in a child process whose
// connection goes through a relay that resets it the moment the driver asks for the array types.
import { spawn } from 'node:child_process';
import { connect as connectTcp, createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const target = new URL(inject('realPgUrl') ?? inject('embeddedPgUrl'));
const sockets = new Set<Socket>();
let cuts = 0;
const relay = createServer((client) => {
  const upstream = connectTcp(Number(target.port), target.hostname);
  for (const s of [client, upstream]) {
    sockets.add(s);
    s.on('error', () => s.destroy());
    s.on('close', () => sockets.delete(s));
  }
  upstream.pipe(client);
  client.on('data', (chunk: Buffer) => {
    if (cuts === 0 && chunk.includes('typarray')) {
      cuts++;
      client.resetAndDestroy(); // as a server that died: the client reads ECONNRESET
      upstream.destroy();
    } else upstream.write(chunk);
  });
});
await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
afterAll(() => {
  relay.close();
  for (const s of sockets) s.destroy();
});

function run(script: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.once('exit', (code) => resolve({ code, out }));
  });
}

describe('connect', () => {
  it('survives a connection cut while the driver fetches its array types; the query that opened it fails', async () => {
    const relayed = new URL(target.href);
    relayed.hostname = '127.0.0.1';
    relayed.port = String((relay.address() as { port: number }).port);
    const script = `
      import { connect } from './shared/db/database.ts';
      const sql = connect(${JSON.stringify(relayed.href)}, 1);
      await sql\`select 1\`.then(() => console.log('query answered'), (err) => console.log('query failed: ' + err.code));
      await new Promise((r) => setTimeout(r, 300));
      console.log('still running');
      process.exit(0);
    `;
    const { code, out } = await run(script);
    expect(cuts).toBe(1);
    expect(out).toContain('query failed: ECONNRESET');
    expect(out).toContain('still running');
    expect(code).toBe(0);
  });
});
